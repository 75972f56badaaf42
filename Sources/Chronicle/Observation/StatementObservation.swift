import GRDB

extension QueryStatement {
  /// The rows of this select now and after every transaction that changes
  /// what it reads, as an async sequence:
  ///
  /// ```swift
  /// for try await reminders in Reminder.where { !$0.isCompleted }.observe(in: database) { … }
  /// ```
  ///
  /// The sequence ends when the task iterating it is cancelled, and throws
  /// when a fetch fails. Consecutive equal results are given once.
  public func observe(in database: ChronicleDatabase) -> AsyncValueObservation<[QueryValue]>
  where QueryValue: Sendable & Equatable {
    ValueObservation.tracking(fetchAll).removeDuplicates().values(in: database.writer)
  }

  /// The rows of this select now and after every transaction that changes
  /// what it reads, as an async sequence. Rows that are not `Equatable`
  /// cannot be compared, so a refetch may give a result equal to the last.
  public func observe(in database: ChronicleDatabase) -> AsyncValueObservation<[QueryValue]> where QueryValue: Sendable {
    ValueObservation.tracking(fetchAll).values(in: database.writer)
  }
}

extension FetchKeyRequest {
  /// The value of this request now and after every transaction that changes
  /// a table it reads, as an async sequence. Consecutive equal values are
  /// given once.
  public func observe(in database: ChronicleDatabase) -> AsyncValueObservation<Value> where Value: Equatable {
    ValueObservation.tracking(fetch).removeDuplicates().values(in: database.writer)
  }

  /// The value of this request now and after every transaction that changes
  /// a table it reads, as an async sequence. A value that is not `Equatable`
  /// cannot be compared, so a refetch may give one equal to the last.
  public func observe(in database: ChronicleDatabase) -> AsyncValueObservation<Value> {
    ValueObservation.tracking(fetch).values(in: database.writer)
  }
}
