import GRDB

// The fetch wrappers with a scheduler, as SQLiteData spells them: where
// values are delivered, for an app that reads them on the main actor
// (`scheduler: .mainActor`, `.async(onQueue: .main)`) or wants every value
// synchronously on the main thread (`.immediate`). Without one, values come
// on a serial background queue, the first one synchronously.

extension FetchAll {
  /// Every row of `Element`'s table, delivered by `scheduler` (loads too).
  public init(
    wrappedValue: [Element] = [], database: (any DatabaseReader)? = nil, scheduler: some ValueObservationScheduler
  ) where Element: Table {
    self.init(wrappedValue: wrappedValue, Element.all, database: database, delivering: scheduler)
  }

  /// The rows of `statement`, delivered by `scheduler` (loads too):
  /// `@FetchAll(Reminder.order(by: \.title), scheduler: .mainActor) var reminders`.
  public init(
    wrappedValue: [Element] = [], _ statement: some QueryStatement<Element>, database: (any DatabaseReader)? = nil,
    scheduler: some ValueObservationScheduler
  ) {
    self.init(wrappedValue: wrappedValue, statement, database: database, delivering: scheduler)
  }
}

extension FetchOne {
  /// The first row of `statement` (`wrappedValue` when it has none),
  /// delivered by `scheduler` (loads too).
  public init(
    wrappedValue: Value, _ statement: some QueryStatement<Value>, database: (any DatabaseReader)? = nil,
    scheduler: some ValueObservationScheduler
  ) {
    self.init(wrappedValue: wrappedValue, statement, database: database, delivering: scheduler)
  }

  /// The first row of `statement` (nil when it has none), delivered by
  /// `scheduler` (loads too).
  public init<Row>(
    wrappedValue: Value = nil, _ statement: some QueryStatement<Row>, database: (any DatabaseReader)? = nil,
    scheduler: some ValueObservationScheduler
  ) where Value == Row? {
    self.init(wrappedValue: wrappedValue, statement, database: database, delivering: scheduler)
  }

  /// The first row of `Row`'s table (nil when it is empty), delivered by
  /// `scheduler` (loads too).
  public init<Row: Table>(
    wrappedValue: Value = nil, database: (any DatabaseReader)? = nil, scheduler: some ValueObservationScheduler
  ) where Value == Row? {
    self.init(wrappedValue: wrappedValue, Row.all.limit(1), database: database, delivering: scheduler)
  }
}

extension Fetch {
  /// The value of `request`, delivered by `scheduler` (loads too).
  public init(
    wrappedValue: Value, _ request: some FetchKeyRequest<Value>, database: (any DatabaseReader)? = nil,
    scheduler: some ValueObservationScheduler
  ) {
    self.init(wrappedValue: wrappedValue, database: database, delivering: scheduler)
    observation.start(request.fetch)
  }

  /// `wrappedValue` until ``load(_:)`` gives a request; values delivered by `scheduler`.
  public init(wrappedValue: Value, database: (any DatabaseReader)? = nil, scheduler: some ValueObservationScheduler) {
    self.init(wrappedValue: wrappedValue, database: database, delivering: scheduler)
  }
}
