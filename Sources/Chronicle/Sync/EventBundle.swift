import Foundation

/// A file of serialized events: what `chronicle export` writes, what a
/// shared folder's segment files hold. Layout in `Schemas/SYNC-PROTOCOL.md`.
enum EventBundle {
  static let magic: [UInt8] = Array("CHRB".utf8)
  /// Version 1: events. Version 2: events, then their origins' routes
  /// (``StoredEventRoute``), written only when there are routes to carry.
  static let version: UInt8 = 2
  /// Size of everything before the first event.
  static let headerSize = 4 + 1 + 16 + 8 + 8

  /// Serializes `events` (each already in the event format), written by
  /// `writer`, with `routes` for forwarding them to relays: version 2 when
  /// given (even none: the writer could route them, they needed none),
  /// version 1 when nil.
  static func encode(writer peer: PeerID, events: [[UInt8]], routes: [StoredEventRoute]? = nil) -> [UInt8] {
    var body = BinaryWriter(capacity: events.reduce(0) { $0 + $1.count + 4 } + (routes?.count ?? 0) * StoredEventRoute.encodedSize + 4)
    for event in events {
      body.writeVarint(event.count)
      body.writeBytes(event)
    }
    if let routes {
      body.writeVarint(routes.count)
      for route in routes { body.writeBytes(route.encoded) }
    }
    var writer = BinaryWriter(capacity: headerSize + body.bytes.count + 4)
    writer.writeBytes(header(writer: peer, eventCount: events.count, bodySize: body.count, withRoutes: routes != nil))
    writer.writeBytes(body.bytes)
    writer.writeUInt32BigEndian(Zlib.crc32(writer.bytes[...]))
    return writer.bytes
  }

  /// Everything before the first event: magic, version, writer, how many
  /// events, and the whole file's size (header, events, checksum).
  static func header(writer peer: PeerID, eventCount: Int, bodySize: Int, withRoutes: Bool) -> [UInt8] {
    var header = BinaryWriter(capacity: headerSize)
    header.writeBytes(magic)
    header.writeByte(withRoutes ? 2 : 1)
    header.writeBytes(peer.bytes)
    header.writeUInt64BigEndian(UInt64(eventCount))
    header.writeUInt64BigEndian(UInt64(headerSize + bodySize + 4))
    return header.bytes
  }

  /// The result of reading a bundle.
  enum Contents {
    /// Every event, verified, and the routes that came with them.
    case complete(writer: PeerID, events: [IncomingEvent], routes: [StoredEventRoute])
    /// Shorter than its header declares: still being written or copied.
    case incomplete(declared: Int, found: Int)
  }

  /// A bundle's events as they are serialized, each with its offset in the
  /// bundle (for errors), before their bodies are decoded.
  struct SerializedEvents {
    var writer: PeerID
    var events: [[UInt8]]
    var starts: [Int]
    /// Routes of its events (version 2), for forwarding them to relays.
    var routes: [StoredEventRoute] = []

    /// Events `range` decoded (on all cores; with a `gate`, each signed
    /// event's signature checked before its body is inflated); an error
    /// names the event's number and its offset in the bundle.
    func decoded(_ range: Range<Int>, source: String, gate: DecodeGate? = nil) throws(SyncError) -> [IncomingEvent] {
      var gate = gate
      gate?.strangerBodyLimit = nil  // a bundle merges in one pass: nothing is left for later
      var decoded: [IncomingEvent] = []
      decoded.reserveCapacity(range.count)
      for (index, outcome) in zip(range, IncomingEvent.decodeAll(Array(events[range]), gate: gate)) {
        switch outcome {
        case .decoded(let incoming): decoded.append(incoming)
        case .malformed(let error):
          throw .badBundle(source: source, offset: starts[index] + error.offset, reason: "event \(index + 1): \(error)")
        case .deferred:
          throw .badBundle(source: source, offset: starts[index], reason: "event \(index + 1) was left undecoded")
        }
      }
      return decoded
    }
  }

  enum Envelope {
    case complete(SerializedEvents)
    case incomplete(declared: Int, found: Int)
  }

  /// Reads and verifies a bundle; `source` names it in errors. With a
  /// `gate`, each signed event's signature is checked before its body is
  /// inflated (see ``IncomingEvent/decodeAll(_:gate:)``).
  static func decode(_ bytes: [UInt8], source: String, gate: DecodeGate? = nil) throws(SyncError) -> Contents {
    switch try envelope(bytes, source: source) {
    case .incomplete(let declared, let found): return .incomplete(declared: declared, found: found)
    case .complete(let serialized):
      return .complete(
        writer: serialized.writer, events: try serialized.decoded(0..<serialized.events.count, source: source, gate: gate),
        routes: serialized.routes)
    }
  }

  /// The bundle checked (magic, version, size, checksum) and cut into its
  /// events, whose bodies are left for ``SerializedEvents/decoded(_:source:)``.
  static func envelope(_ bytes: [UInt8], source: String) throws(SyncError) -> Envelope {
    func bad(_ offset: Int, _ reason: String) -> SyncError { .badBundle(source: source, offset: offset, reason: reason) }
    guard bytes.count >= headerSize else {
      if bytes.count < magic.count || Array(bytes.prefix(magic.count)) == magic {
        return .incomplete(declared: headerSize, found: bytes.count)
      }
      throw bad(0, "not an event bundle (no CHRB magic)")
    }
    guard Array(bytes.prefix(4)) == magic else { throw bad(0, "not an event bundle (no CHRB magic)") }
    guard (1...version).contains(bytes[4]) else {
      throw bad(4, "bundle format version \(bytes[4]) is not supported (this build reads versions 1 to \(version)): a newer Chronicle wrote it")
    }
    let withRoutes = bytes[4] == 2
    var reader = BinaryReader(bytes, context: .envelope)
    do {
      _ = try reader.readBytes(5)
      guard let peer = PeerID(bytes: try reader.readBytes(16)) else { throw bad(5, "truncated peer id") }
      let count = try reader.readUInt64BigEndian()
      let declared = try reader.readUInt64BigEndian()
      guard declared <= UInt64(Int.max), Int(declared) >= headerSize + 4 else { throw bad(29, "declared size \(declared) is impossible") }
      if bytes.count < Int(declared) { return .incomplete(declared: Int(declared), found: bytes.count) }
      guard bytes.count == Int(declared) else { throw bad(Int(declared), "\(bytes.count - Int(declared)) bytes after the declared end") }
      let stored = bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
      let computed = Zlib.crc32(bytes.dropLast(4))
      guard stored == computed else { throw bad(bytes.count - 4, "checksum mismatch (stored \(stored), computed \(computed)): the file is corrupt") }
      guard count <= UInt64(bytes.count) else { throw bad(21, "declares \(count) events, more than its bytes can hold") }
      // The events' bytes and where each starts.
      var serialized: [[UInt8]] = []
      var starts: [Int] = []
      serialized.reserveCapacity(Int(count))
      for _ in 0..<count {
        let start = reader.offset
        let length = try reader.readLength()
        guard length <= reader.remaining - 4 else { throw bad(start, "event length \(length) runs past the end") }
        starts.append(reader.offset)
        serialized.append(Array(try reader.readBytes(length)))
      }
      var routes: [StoredEventRoute] = []
      if withRoutes {
        let start = reader.offset
        let count = try reader.readLength()
        guard count <= (reader.remaining - 4) / StoredEventRoute.encodedSize else { throw bad(start, "declares \(count) routes, more than its bytes hold") }
        routes.reserveCapacity(count)
        for _ in 0..<count {
          let offset = reader.offset
          guard let route = StoredEventRoute(encoded: try reader.readBytes(StoredEventRoute.encodedSize)) else { throw bad(offset, "a malformed route") }
          routes.append(route)
        }
      }
      guard reader.remaining == 4 else { throw bad(reader.offset, "\(reader.remaining - 4) unexpected bytes after the last event") }
      return .complete(SerializedEvents(writer: peer, events: serialized, starts: starts, routes: routes))
    } catch let error as SyncError {
      throw error
    } catch {
      throw bad(reader.offset, "\(error)")
    }
  }
}
