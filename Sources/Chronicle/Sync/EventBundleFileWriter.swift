import Foundation

/// Writes a bundle file as its events arrive, holding about a mebibyte of
/// them at a time: `chronicle export` of a log of any length in flat
/// memory. The file is the one ``EventBundle/encode(writer:events:routes:)``
/// makes, byte for byte. Routes, which follow the events in the file, are
/// kept in a second hidden file until the events are all written. It is written beside its destination under a
/// hidden name and renamed into place when finished, so the destination
/// holds a whole bundle or what it held before.
struct EventBundleFileWriter {
  static let flushBytes = 1 << 20

  private let destination: URL
  private let partial: URL
  private let handle: FileHandle
  private let writer: PeerID
  private var buffer = BinaryWriter(capacity: flushBytes + 64)
  private var eventCount = 0
  private var bodySize = 0
  private var bodyCRC: UInt32 = 0
  /// The routes so far, encoded, and how many.
  private let routesFile: URL
  private var routesHandle: FileHandle?
  private var routeCount = 0

  /// Starts the file for `destination`, its header to be written last.
  init(to destination: URL, writer: PeerID) throws {
    self.destination = destination
    self.writer = writer
    partial = destination.deletingLastPathComponent()
      .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).partial")
    guard FileManager.default.createFile(atPath: partial.path, contents: Data(count: EventBundle.headerSize)) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: partial.path])
    }
    handle = try FileHandle(forWritingTo: partial)
    try handle.seekToEnd()
    routesFile = partial.appendingPathExtension("routes")
  }

  /// Adds routes of events of the bundle (written after every event).
  mutating func append(routes: [StoredEventRoute]) throws {
    guard !routes.isEmpty else { return }
    if routesHandle == nil {
      guard FileManager.default.createFile(atPath: routesFile.path, contents: nil) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: routesFile.path])
      }
      routesHandle = try FileHandle(forUpdating: routesFile)
    }
    try routesHandle?.write(contentsOf: routes.flatMap(\.encoded))
    routeCount += routes.count
  }

  /// Appends one serialized event.
  mutating func append(_ event: some Collection<UInt8>) throws {
    buffer.writeVarint(event.count)
    buffer.writeBytes(event)
    eventCount += 1
    if buffer.count >= Self.flushBytes { try flush() }
  }

  private mutating func flush() throws {
    guard buffer.count > 0 else { return }
    bodyCRC = Zlib.crc32(buffer.bytes[...], continuing: bodyCRC)
    bodySize += buffer.count
    try handle.write(contentsOf: buffer.bytes)
    buffer.removeAll()
  }

  /// Writes the checksum and the header, and renames the file into place;
  /// returns how many events it holds.
  mutating func finish() throws -> Int {
    if let routesHandle {
      buffer.writeVarint(routeCount)
      try routesHandle.seek(toOffset: 0)
      while let chunk = try routesHandle.read(upToCount: Self.flushBytes), !chunk.isEmpty {
        buffer.writeBytes(Array(chunk))
        if buffer.count >= Self.flushBytes { try flush() }
      }
      try routesHandle.close()
      self.routesHandle = nil
      try? FileManager.default.removeItem(at: routesFile)
    }
    try flush()
    let header = EventBundle.header(writer: writer, eventCount: eventCount, bodySize: bodySize, withRoutes: routeCount > 0)
    var trailer = BinaryWriter(capacity: 4)
    trailer.writeUInt32BigEndian(Zlib.crc32(combining: Zlib.crc32(header[...]), bodyCRC, secondLength: bodySize))
    try handle.write(contentsOf: trailer.bytes)
    try handle.seek(toOffset: 0)
    try handle.write(contentsOf: header)
    try handle.synchronize()
    try handle.close()
    guard rename(partial.path, destination.path) == 0 else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
    }
    return eventCount
  }

  /// Removes the unfinished file after an error.
  func abandon() {
    try? handle.close()
    try? routesHandle?.close()
    try? FileManager.default.removeItem(at: partial)
    try? FileManager.default.removeItem(at: routesFile)
  }
}
