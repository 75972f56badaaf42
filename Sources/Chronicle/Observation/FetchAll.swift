import GRDB

/// The rows of a query, kept up to date as the database changes.
///
/// ```swift
/// @Observable final class RemindersModel {
///   @ObservationIgnored
///   @FetchAll(Reminder.where { !$0.isCompleted }.order(by: \.title)) var reminders
///
///   @ObservationIgnored
///   @FetchAll var lists: [RemindersList]      // every row of the table
/// }
/// ```
///
/// The rows are fetched when the wrapper is created, and again after every
/// committed transaction that changes a table the query reads, whether it
/// was written here or applied by a sync. Readers of ``wrappedValue`` inside
/// `withObservationTracking` (or a SwiftUI view) are notified of each new
/// value; a refetch that returns equal rows (when `Element` is `Equatable`)
/// notifies nobody. Mark it `@ObservationIgnored` in an `@Observable` type:
/// the wrapper is observable itself.
///
/// The database is the `database:` argument, or else
/// `@Dependency(\.defaultDatabase)`.
@propertyWrapper
public struct FetchAll<Element: Sendable>: Sendable {
  let observation: FetchObservation<ResultsSectionCollection<Element, String?>>

  /// The rows, as last fetched.
  public var wrappedValue: [Element] { observation.value.elements }

  /// The rows grouped into sections, for a wrapper given `sectionBy:`
  /// (see ``ResultsSectionCollection``); otherwise one section, named nil,
  /// of every row.
  public var sections: ResultsSectionCollection<Element, String?> { observation.value }

  /// The wrapper itself, for ``load(_:)``, ``loadError`` and ``isLoading``:
  /// `$reminders.load(...)`.
  public var projectedValue: Self { self }

  /// The error of the last fetch; nil once a fetch succeeds. Observation
  /// stops at an error, and ``load(_:)`` starts it again.
  public var loadError: (any Error)? { observation.loadError }

  /// True while ``load(_:)`` waits for its first rows.
  public var isLoading: Bool { observation.isLoading }

  /// Every row of `Element`'s table.
  public init(wrappedValue: [Element] = [], database: (any DatabaseReader)? = nil) where Element: Table {
    self.init(wrappedValue: wrappedValue, Element.all, database: database)
  }

  /// The rows of `statement`.
  ///
  /// - Parameters:
  ///   - wrappedValue: the value if the first fetch fails.
  ///   - statement: the select to observe.
  ///   - database: the database; `@Dependency(\.defaultDatabase)` when nil.
  public init(wrappedValue: [Element] = [], _ statement: some QueryStatement<Element>, database: (any DatabaseReader)? = nil) {
    self.init(wrappedValue: wrappedValue, statement, database: database, delivering: nil)
  }

  init(
    wrappedValue: [Element], _ statement: some QueryStatement<Element>, database: (any DatabaseReader)?,
    delivering scheduler: (any ValueObservationScheduler)?
  ) {
    self.init(wrappedValue: wrappedValue, fetching: Self.unsectioned(statement), database: database, delivering: scheduler)
  }

  /// Observes `fetch`, rows in sections or in one.
  init(
    wrappedValue: [Element], fetching fetch: @escaping @Sendable (Database) throws -> ResultsSectionCollection<Element, String?>,
    database: (any DatabaseReader)?, delivering scheduler: (any ValueObservationScheduler)?
  ) {
    observation = FetchObservation(
      initialValue: ResultsSectionCollection(elements: wrappedValue, sectionName: nil),
      reader: database ?? currentDefaultDatabase, scheduler: scheduler)
    observation.start(fetch)
  }

  /// The rows of `statement`, in one section.
  static func unsectioned(
    _ statement: some QueryStatement<Element>
  ) -> @Sendable (Database) throws -> ResultsSectionCollection<Element, String?> {
    { db in ResultsSectionCollection(elements: try statement.fetchAll(db), sectionName: nil) }
  }

  /// Replaces the query: observes `statement` from now on, and returns once
  /// its first rows are there, with the subscription that stops this
  /// observation (`try await $rows.load(query).task` ties it to a task).
  /// Throws the first fetch's error.
  @discardableResult
  public func load(_ statement: some QueryStatement<Element>) async throws -> FetchSubscription {
    try await observation.load(Self.unsectioned(statement))
  }
}
