import GRDB

/// The first row of a query, or a single aggregate, kept up to date as the
/// database changes.
///
/// ```swift
/// @ObservationIgnored @FetchOne(Reminder.where(\.isCompleted).count()) var completedCount = 0
/// @ObservationIgnored @FetchOne(Reminder.select { Stats.Columns(...) }) var stats = Stats()
/// @ObservationIgnored @FetchOne(Reminder.order(by: \.title)) var first: Reminder?
/// ```
///
/// Works as ``FetchAll`` does: fetched at once, fetched again after every
/// transaction that changes what the query reads, and observable.
@propertyWrapper
public struct FetchOne<Value: Sendable>: Sendable {
  let observation: FetchObservation<Value>

  /// The value, as last fetched.
  public var wrappedValue: Value { observation.value }

  /// The wrapper itself, for ``load(_:)``, ``loadError`` and ``isLoading``.
  public var projectedValue: Self { self }

  /// The error of the last fetch; nil once a fetch succeeds.
  public var loadError: (any Error)? { observation.loadError }

  /// True while ``load(_:)`` waits for its first value.
  public var isLoading: Bool { observation.isLoading }

  /// The first row of `statement`; `wrappedValue` when it has none.
  public init(wrappedValue: Value, _ statement: some QueryStatement<Value>, database: (any DatabaseReader)? = nil) {
    self.init(wrappedValue: wrappedValue, statement, database: database, delivering: nil)
  }

  /// The first row of `statement`, nil when it has none.
  public init<Row>(wrappedValue: Value = nil, _ statement: some QueryStatement<Row>, database: (any DatabaseReader)? = nil)
  where Value == Row? {
    self.init(wrappedValue: wrappedValue, statement, database: database, delivering: nil)
  }

  init(
    wrappedValue: Value, _ statement: some QueryStatement<Value>, database: (any DatabaseReader)?,
    delivering scheduler: (any ValueObservationScheduler)?
  ) {
    observation = FetchObservation(initialValue: wrappedValue, reader: database ?? currentDefaultDatabase, scheduler: scheduler)
    observation.start(Self.first(of: statement, default: wrappedValue))
  }

  init<Row>(
    wrappedValue: Value, _ statement: some QueryStatement<Row>, database: (any DatabaseReader)?,
    delivering scheduler: (any ValueObservationScheduler)?
  ) where Value == Row? {
    observation = FetchObservation(initialValue: wrappedValue, reader: database ?? currentDefaultDatabase, scheduler: scheduler)
    observation.start(statement.fetchOne)
  }

  /// The first row of `Row`'s table, nil when it is empty.
  public init<Row: Table>(wrappedValue: Value = nil, database: (any DatabaseReader)? = nil) where Value == Row? {
    self.init(wrappedValue: wrappedValue, Row.all.limit(1), database: database)
  }

  /// Replaces the query with `statement` (whose empty result gives
  /// `default`), and returns once its first value is there, with the
  /// subscription that stops this observation.
  @discardableResult
  public func load(_ statement: some QueryStatement<Value>, default: Value) async throws -> FetchSubscription {
    try await observation.load(Self.first(of: statement, default: `default`))
  }

  /// Replaces the query with `statement` (nil when it has no row), and
  /// returns once its first value is there, with the subscription that
  /// stops this observation.
  @discardableResult
  public func load<Row>(_ statement: some QueryStatement<Row>) async throws -> FetchSubscription where Value == Row? {
    try await observation.load(statement.fetchOne)
  }

  private static func first(
    of statement: some QueryStatement<Value>, default: Value
  ) -> @Sendable (Database) throws -> Value {
    { db in try statement.fetchOne(db) ?? `default` }
  }
}
