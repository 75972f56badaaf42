import ChronicleQueryMacros
import MacroTesting
import Testing

@Suite("@DatabaseFunction macro", .macros(["DatabaseFunction": DatabaseFunctionMacro.self]))
struct DatabaseFunctionMacroTests {
  @Test func scalar() {
    assertMacro {
      """
      @DatabaseFunction("is_past_due", isDeterministic: true)
      public func isPastDue(reminder: Reminder, _ now: Date) throws -> Bool {
        !reminder.isCompleted && reminder.dueDate < now
      }
      """
    } expansion: {
      """
      public func isPastDue(reminder: Reminder, _ now: Date) throws -> Bool {
        !reminder.isCompleted && reminder.dueDate < now
      }

      public struct __macro_local_9isPastDuefMu_: ChronicleQuery.ScalarDatabaseFunction {
        public typealias Output = Bool
        public let name = "is_past_due"
        public let isDeterministic = true
        public init() {
        }
        public var argumentCount: Int {
          Reminder.queryColumnCount + Date.queryColumnCount
        }
        public func invoke(_ arguments: inout ChronicleQuery.SQLiteQueryDecoder) throws -> Bool {
          let argument0 = try arguments.decodeColumns(Reminder.self)
          let argument1 = try arguments.decodeColumns(Date.self)
          return try isPastDue(reminder: argument0, argument1)
        }
        public func callAsFunction(reminder argument0: some ChronicleQuery.QueryExpression<Reminder>, _ argument1: some ChronicleQuery.QueryExpression<Date>) -> ChronicleQuery.SQLQueryExpression<Bool> {
          ChronicleQuery.SQLQueryExpression(
            ChronicleQuery.QueryFragment(sql: ChronicleQuery.quotedIdentifier(name) + "(") + [argument0.queryFragment, argument1.queryFragment].joined(separator: ", ") + ChronicleQuery.QueryFragment(sql: ")"))
        }
      }

      public let $isPastDue = __macro_local_9isPastDuefMu_()
      """
    }
  }

  @Test func aggregateOfATuple() {
    assertMacro {
      """
      @DatabaseFunction
      func joined(_ parts: some Sequence<(String, separator: String?)>) -> String? {
        nil
      }
      """
    } expansion: {
      """
      func joined(_ parts: some Sequence<(String, separator: String?)>) -> String? {
        nil
      }

      struct __macro_local_6joinedfMu_: ChronicleQuery.AggregateDatabaseFunction {
        typealias Output = String?
        let name = "joined"
        let isDeterministic = false
        init() {
        }
        typealias Element = (String, separator: String?)
        var argumentCount: Int {
          String.queryColumnCount + String?.queryColumnCount
        }
        func step(_ arguments: inout ChronicleQuery.SQLiteQueryDecoder) throws -> (String, separator: String?) {
          let member0 = try arguments.decodeColumns(String.self)
          let member1 = try arguments.decodeColumns(String?.self)
          return (member0, separator: member1)
        }
        func finalize(_ elements: [(String, separator: String?)]) throws -> String? {
          return joined(elements)
        }
        func callAsFunction(_ argument0: some ChronicleQuery.QueryExpression<String>, separator argument1: some ChronicleQuery.QueryExpression<String?>, filter: (any ChronicleQuery.QueryExpression<Bool>)? = nil) -> ChronicleQuery.SQLQueryExpression<String?> {
          aggregateCall([argument0.queryFragment, argument1.queryFragment], filter: filter)
        }
        func callAsFunction(_ argument0: some ChronicleQuery.QueryExpression<String>, separator argument1: some ChronicleQuery.QueryExpression<String>, filter: (any ChronicleQuery.QueryExpression<Bool>)? = nil) -> ChronicleQuery.SQLQueryExpression<String?> {
          aggregateCall([argument0.queryFragment, argument1.queryFragment], filter: filter)
        }
      }

      let $joined = __macro_local_6joinedfMu_()
      """
    }
  }

  @Test func aggregate() {
    assertMacro {
      """
      @DatabaseFunction
      func mode(priority priorities: some Sequence<Priority?>) -> Priority? {
        priorities.first ?? nil
      }
      """
    } expansion: {
      """
      func mode(priority priorities: some Sequence<Priority?>) -> Priority? {
        priorities.first ?? nil
      }

      struct __macro_local_4modefMu_: ChronicleQuery.AggregateDatabaseFunction {
        typealias Output = Priority?
        let name = "mode"
        let isDeterministic = false
        init() {
        }
        typealias Element = Priority?
        var argumentCount: Int {
          Priority?.queryColumnCount
        }
        func step(_ arguments: inout ChronicleQuery.SQLiteQueryDecoder) throws -> Priority? {
          let member0 = try arguments.decodeColumns(Priority?.self)
          return member0
        }
        func finalize(_ elements: [Priority?]) throws -> Priority? {
          return mode(priority: elements)
        }
        func callAsFunction(priority argument0: some ChronicleQuery.QueryExpression<Priority?>, filter: (any ChronicleQuery.QueryExpression<Bool>)? = nil) -> ChronicleQuery.SQLQueryExpression<Priority?> {
          aggregateCall([argument0.queryFragment], filter: filter)
        }
        func callAsFunction(priority argument0: some ChronicleQuery.QueryExpression<Priority>, filter: (any ChronicleQuery.QueryExpression<Bool>)? = nil) -> ChronicleQuery.SQLQueryExpression<Priority?> {
          aggregateCall([argument0.queryFragment], filter: filter)
        }
      }

      let $mode = __macro_local_4modefMu_()
      """
    }
  }

  @Test func staticMethod() {
    assertMacro {
      """
      enum Text {
        @DatabaseFunction
        static func initials(_ title: String) -> String { title }
      }
      """
    } expansion: {
      """
      enum Text {
        static func initials(_ title: String) -> String { title }

        struct __macro_local_8initialsfMu_: ChronicleQuery.ScalarDatabaseFunction {
          typealias Output = String
          let name = "initials"
          let isDeterministic = false
          init() {
          }
          var argumentCount: Int {
            String.queryColumnCount
          }
          func invoke(_ arguments: inout ChronicleQuery.SQLiteQueryDecoder) throws -> String {
            let argument0 = try arguments.decodeColumns(String.self)
            return initials(argument0)
          }
          func callAsFunction(_ argument0: some ChronicleQuery.QueryExpression<String>) -> ChronicleQuery.SQLQueryExpression<String> {
            ChronicleQuery.SQLQueryExpression(
              ChronicleQuery.QueryFragment(sql: ChronicleQuery.quotedIdentifier(name) + "(") + [argument0.queryFragment].joined(separator: ", ") + ChronicleQuery.QueryFragment(sql: ")"))
          }
        }

        static let $initials = __macro_local_8initialsfMu_()
      }
      """
    }
  }

  /// An instance method's `$name` calls the instance: a struct's held as
  /// it is, a class's weakly (a released one fails the call).
  @Test func instanceMethods() {
    assertMacro {
      """
      struct Weights {
        let factor: Int
        @DatabaseFunction
        func weighted(_ values: some Sequence<Int>) -> Int { 0 }
      }
      final class Logger {
        @DatabaseFunction
        func log(_ message: String) {}
      }
      """
    } expansion: {
      """
      struct Weights {
        let factor: Int
        func weighted(_ values: some Sequence<Int>) -> Int { 0 }

        struct __macro_local_8weightedfMu_: ChronicleQuery.AggregateDatabaseFunction {
          typealias Output = Int
          let name = "weighted"
          let isDeterministic = false
          let owner: Weights
          typealias Element = Int
          var argumentCount: Int {
            Int.queryColumnCount
          }
          func step(_ arguments: inout ChronicleQuery.SQLiteQueryDecoder) throws -> Int {
            let member0 = try arguments.decodeColumns(Int.self)
            return member0
          }
          func finalize(_ elements: [Int]) throws -> Int {
            return owner.weighted(elements)
          }
          func callAsFunction(_ argument0: some ChronicleQuery.QueryExpression<Int>, filter: (any ChronicleQuery.QueryExpression<Bool>)? = nil) -> ChronicleQuery.SQLQueryExpression<Int> {
            aggregateCall([argument0.queryFragment], filter: filter)
          }
        }

        var $weighted: __macro_local_8weightedfMu_ {
          __macro_local_8weightedfMu_(owner: self)
        }
      }
      final class Logger {
        func log(_ message: String) {}

        struct __macro_local_3logfMu_: ChronicleQuery.ScalarDatabaseFunction {
          typealias Output = ChronicleQuery.NoResult
          let name = "log"
          let isDeterministic = false
          weak let owner: Logger?
          var argumentCount: Int {
            String.queryColumnCount
          }
          func invoke(_ arguments: inout ChronicleQuery.SQLiteQueryDecoder) throws -> Void {
            let argument0 = try arguments.decodeColumns(String.self)
            guard let owner else {
              throw ChronicleQuery.DatabaseFunctionError.instanceReleased(name)
            }
            return owner.log(argument0)
          }
          func callAsFunction(_ argument0: some ChronicleQuery.QueryExpression<String>) -> ChronicleQuery.SQLQueryExpression<ChronicleQuery.NoResult> {
            ChronicleQuery.SQLQueryExpression(
              ChronicleQuery.QueryFragment(sql: ChronicleQuery.quotedIdentifier(name) + "(") + [argument0.queryFragment].joined(separator: ", ") + ChronicleQuery.QueryFragment(sql: ")"))
          }
        }

        var $log: __macro_local_3logfMu_ {
          __macro_local_3logfMu_(owner: self)
        }
      }
      """
    }
  }

  @Test func misuse() {
    assertMacro {
      """
      actor Model {
        @DatabaseFunction
        func instance() -> Int { 1 }
      }
      @DatabaseFunction
      func later() async -> Int { 1 }
      @DatabaseFunction
      func mixed(values: some Sequence<Int>, weight: Double) -> Double { 0 }
      @DatabaseFunction
      var notAFunction = 1
      """
    } diagnostics: {
      """
      actor Model {
        @DatabaseFunction
        func instance() -> Int { 1 }
             ┬───────
             ╰─ 🛑 @DatabaseFunction cannot call an actor's method: SQLite calls it synchronously, outside the actor. Make it nonisolated or static, or move it out of the actor
      }
      @DatabaseFunction
      func later() async -> Int { 1 }
           ┬────
           ╰─ 🛑 @DatabaseFunction cannot call an async function: SQLite calls it synchronously, inside a statement
      @DatabaseFunction
      func mixed(values: some Sequence<Int>, weight: Double) -> Double { 0 }
                 ┬──────────────────────────
                 ╰─ 🛑 an aggregate @DatabaseFunction takes one parameter, the sequence of the group's values; take the other values as part of each element, or write two functions
      @DatabaseFunction
      ┬────────────────
      ╰─ 🛑 @DatabaseFunction applies to a function
      var notAFunction = 1
      """
    }
  }
}
