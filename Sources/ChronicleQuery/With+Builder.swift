/// One common table of a `With` written as upstream writes it: a select of
/// a table type's rows, named after that type's table.
public struct CommonTableClause: Sendable {
  let definition: QueryFragment
}

/// The common tables of `With { … } query: { … }`, one select per line.
@resultBuilder
public enum CommonTableBuilder {
  /// A select of `T`'s rows: the common table named after `T`'s table.
  public static func buildExpression<T: Table>(_ select: some SelectStatement<T>) -> CommonTableClause {
    CommonTableClause(definition: CommonTable<T>(namedAfterItsType: select).definition)
  }

  /// The common tables, in the order written.
  public static func buildBlock(_ clauses: CommonTableClause...) -> [CommonTableClause] { clauses }
}

extension With {
  /// Common tables, each named after the table type of its rows, and the
  /// statement that reads them through those types (a select, an insert, an
  /// update or a delete):
  ///
  /// ```swift
  /// With {
  ///   Reminder.where { $0.isFlagged }.select { Flagged.Columns(id: $0.id, title: $0.title) }
  ///   RemindersList.where { $0.position < 3 }.select { Top.Columns(id: $0.id) }
  /// } query: {
  ///   Flagged.order(by: \.title)
  /// }
  /// // WITH "flaggeds"("id", "title") AS (SELECT …), "tops"("id") AS (SELECT …)
  /// // SELECT "flaggeds"."id", "flaggeds"."title" FROM "flaggeds" ORDER BY "flaggeds"."title"
  /// ```
  ///
  /// A common table whose select reads its own type (through a union with
  /// a select of it) is recursive: SQLite needs no `RECURSIVE` keyword.
  public init(@CommonTableBuilder _ tables: () -> [CommonTableClause], query: () -> some QueryStatement<Output>) {
    self.init(tables: tables().map(\.definition), isRecursive: false, final: query())
  }
}
