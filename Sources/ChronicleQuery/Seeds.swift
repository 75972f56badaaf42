import GRDB

/// Rows to seed a database with, as upstream spells it: whole rows and
/// drafts of several tables, in order, each run of one table's rows
/// inserted by one statement.
///
/// ```swift
/// try db.seed {
///   RemindersList(id: home, title: "Home")
///   for title in ["Milk", "Eggs"] {
///     Reminder.Draft(remindersListID: home, title: title)
///   }
/// }
/// ```
///
/// Iterate a `Seeds` for the inserts themselves: `for insert in Seeds { … } { try insert.execute(db) }`.
public struct Seeds: Sequence, Sendable {
  let rows: [SeedRow]

  public init(@SeedsBuilder _ build: () -> [SeedRow]) {
    rows = build()
  }

  public func makeIterator() -> Iterator { Iterator(rows: rows[...]) }

  /// The inserts, one per run of rows of one type that name the same columns.
  public struct Iterator: IteratorProtocol {
    var rows: ArraySlice<SeedRow>

    public mutating func next() -> (any QueryStatement<Void>)? {
      guard let first = rows.first else { return nil }
      let run = rows.prefix { $0.type == first.type && $0.columns == first.columns }
      rows = rows.dropFirst(run.count)
      return first.insert(run.map(\.values))
    }
  }
}

/// One seeded row: a table's row or a draft, with its column values.
public struct SeedRow: Sendable {
  let type: ObjectIdentifier
  let values: [(column: String, value: QueryBinding)]
  let insert: @Sendable ([[(column: String, value: QueryBinding)]]) -> any QueryStatement<Void>
  var columns: [String] { values.map(\.column) }

  init<T: Table>(row: T) {
    type = ObjectIdentifier(T.self)
    values = T.valueLists([row])[0]
    insert = { Insert<T, Void>(resolution: nil, valueLists: $0) }
  }

  init<D: TableDraft>(draft: D) {
    type = ObjectIdentifier(D.self)
    values = draft.insertValues
    insert = { Insert<D.Base, Void>(resolution: nil, valueLists: $0) }
  }
}

/// Collects ``Seeds``: rows and drafts of any tables, with `for` and `if`.
@resultBuilder
public enum SeedsBuilder {
  public static func buildExpression(_ row: some Table) -> [SeedRow] { [SeedRow(row: row)] }
  public static func buildExpression(_ draft: some TableDraft) -> [SeedRow] { [SeedRow(draft: draft)] }
  public static func buildExpression(_ rows: [SeedRow]) -> [SeedRow] { rows }
  public static func buildBlock(_ parts: [SeedRow]...) -> [SeedRow] { parts.flatMap { $0 } }
  public static func buildArray(_ parts: [[SeedRow]]) -> [SeedRow] { parts.flatMap { $0 } }
  public static func buildOptional(_ part: [SeedRow]?) -> [SeedRow] { part ?? [] }
  public static func buildEither(first: [SeedRow]) -> [SeedRow] { first }
  public static func buildEither(second: [SeedRow]) -> [SeedRow] { second }
  public static func buildLimitedAvailability(_ part: [SeedRow]) -> [SeedRow] { part }
}

extension Database {
  /// Inserts the rows and drafts `build` gives, in order (one statement per
  /// run of one table's rows), as SQLiteData's `db.seed` does.
  public func seed(@SeedsBuilder _ build: () -> [SeedRow]) throws {
    for insert in Seeds(build) { try insert.execute(self) }
  }
}
