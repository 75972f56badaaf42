import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct ChronicleQueryMacrosPlugin: CompilerPlugin {
  let providingMacros: [any Macro.Type] = [TableMacro.self, ColumnMacro.self, EphemeralMacro.self, SQLMacro.self, SelectionMacro.self, DatabaseFunctionMacro.self, DatabaseCollationMacro.self, BindMacro.self]
}
