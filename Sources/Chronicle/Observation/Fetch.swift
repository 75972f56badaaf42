import GRDB

/// The value of a ``FetchKeyRequest`` (several reads in one transaction),
/// kept up to date as the database changes.
///
/// ```swift
/// @ObservationIgnored @Fetch(PlayersRequest()) var response = PlayersRequest.Value()
///
/// @ObservationIgnored @Fetch var results = SearchRequest.Value()
/// …
/// try await $results.load(SearchRequest(query: "swift"))
/// ```
///
/// Works as ``FetchAll`` does: fetched at once, fetched again after every
/// transaction that changes a table the request reads, and observable.
@propertyWrapper
public struct Fetch<Value: Sendable>: Sendable {
  let observation: FetchObservation<Value>

  /// The value, as last fetched.
  public var wrappedValue: Value { observation.value }

  /// The wrapper itself, for ``load(_:)``, ``loadError`` and ``isLoading``.
  public var projectedValue: Self { self }

  /// The error of the last fetch; nil once a fetch succeeds.
  public var loadError: (any Error)? { observation.loadError }

  /// True while ``load(_:)`` waits for its first value.
  public var isLoading: Bool { observation.isLoading }

  /// The value of `request`.
  public init(wrappedValue: Value, _ request: some FetchKeyRequest<Value>, database: (any DatabaseReader)? = nil) {
    self.init(wrappedValue: wrappedValue, database: database)
    observation.start(request.fetch)
  }

  /// `wrappedValue` until ``load(_:)`` gives a request.
  public init(wrappedValue: Value, database: (any DatabaseReader)? = nil) {
    self.init(wrappedValue: wrappedValue, database: database, delivering: nil)
  }

  init(wrappedValue: Value, database: (any DatabaseReader)?, delivering scheduler: (any ValueObservationScheduler)?) {
    observation = FetchObservation(initialValue: wrappedValue, reader: database ?? currentDefaultDatabase, scheduler: scheduler)
  }

  /// Observes `request` from now on, and returns once its first value is
  /// there, with the subscription that stops this observation. Throws the
  /// first fetch's error.
  @discardableResult
  public func load(_ request: some FetchKeyRequest<Value>) async throws -> FetchSubscription {
    try await observation.load(request.fetch)
  }
}
