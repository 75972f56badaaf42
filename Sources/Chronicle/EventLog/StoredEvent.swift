/// An event as stored in this database's log.
public struct StoredEvent: Hashable, Sendable {
  /// Position in this file's log (order of arrival here).
  public var id: Int64
  public var event: ChangeEvent
  /// Size of the body before compression.
  public var rawSize: Int
  /// Size of the serialized event (envelope and compressed body).
  public var storedSize: Int
  public var checksum: UInt32
}
