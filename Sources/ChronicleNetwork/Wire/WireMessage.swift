import Chronicle

/// The messages of the TCP sync protocol (`Schemas/SYNC-PROTOCOL.md`, "TCP
/// transport"). Each travels in one frame.
enum WireMessage: Equatable {
  /// Client, first: who it is and its nonce.
  case hello(version: UInt8, peer: PeerID, nonce: [UInt8])
  /// Server's answer: who it is and its nonce.
  case challenge(version: UInt8, peer: PeerID, nonce: [UInt8])
  /// Client: HMAC of the transcript under the group key, and, from a device
  /// with its key, the device's signature of the transcript.
  case proof([UInt8], device: DeviceProof?)
  /// Server, first sealed frame: its own HMAC of the transcript, and its
  /// device's signature.
  case welcome(proof: [UInt8], device: DeviceProof?)
  /// Either side: the session ends, and why.
  case failure(String)
  /// Client: send me your version vector (I am about to push).
  case vectorRequest
  /// A version vector: what the sender holds; from protocol 6, and only
  /// when there are any, the ranges of events it holds without their
  /// origins' routes (``RouteWant``), answered with a `routes` message.
  case vector(VersionVector, wants: [RouteWant] = [])
  /// How many events, and bytes, the sender is about to stream, and (from
  /// protocol 4) the clock of the oldest of them: a receiver whose local
  /// history not folded into merge state is all older merges without
  /// folding it, so it need not prepare.
  case offer(events: Int, bytes: Int, oldest: HLCTimestamp? = nil)
  /// Serialized events.
  case events([[UInt8]])
  /// A piece of one event too large for a frame: the event's whole size and
  /// the next bytes of it. Pieces follow each other until the event is whole.
  case eventPart(total: Int, bytes: [UInt8])
  /// The stream is complete.
  case end
  /// Receiving side (protocol 3), after an offer: it is reading its own
  /// history into merge state before it can merge (its first merge), this
  /// far: events read, of how many. Sent every few seconds until `ready`.
  case working(folded: Int, total: Int)
  /// Receiving side (protocol 3), after an offer: send the events.
  case ready
  /// Sending side (protocol 6), before events: their origins' signatures
  /// for relays (``StoredEventRoute``), so the receiver can forward them.
  case routes([StoredEventRoute])
  /// The receiver applied the stream.
  case applied(events: Int, duplicates: Int, rowChanges: Int)
  /// Client: the session is over.
  case bye
  /// Client: which of these blobs do you lack?
  case blobQuery([BlobHash])
  /// A list of blobs: the answer to a query (those the server lacks), or
  /// the end of a requested stream (those the server does not hold).
  case blobList([BlobHash])
  /// Client: send me these blobs.
  case blobRequest([BlobHash])
  /// One blob and its hash (the receiver verifies the bytes against it).
  case blob(BlobHash, [UInt8])
  /// A piece of one blob too large for a frame: its hash, its whole size and
  /// the next bytes of it. Pieces follow each other until the blob is whole.
  case blobPart(BlobHash, total: Int, bytes: [UInt8])
  /// Server: it stored the pushed blobs.
  case blobsStored(count: Int, bytes: Int)

  static let magic: [UInt8] = Array("CHRN".utf8)
  static let protocolVersion: UInt8 = 6
  /// The oldest version a peer of this one still speaks. Version 5 made each
  /// hello's nonce an ephemeral X25519 key, mixed into the session's keys:
  /// older versions, whose sessions anyone holding the group key file could
  /// read from recorded traffic, are refused.
  static let oldestProtocolVersion: UInt8 = 5
  /// The most events one `events` message holds (a sender sends pages of at most 4,096).
  static let maxEventsPerMessage = 4_096
  /// The most routes one `routes` message holds (a sender sends one per page of at most 4,096 events).
  static let maxRoutesPerMessage = 4_096
  /// The hello's and challenge's nonce: the sender's ephemeral X25519 public key.
  static let nonceSize = 32
  /// The first byte of a failure message, the one message accepted unsealed at any time.
  static let failureTag = Kind.failure.rawValue

  private enum Kind: UInt8 {
    case hello = 1, challenge, proof, welcome
    case failure = 0x0F
    case vectorRequest = 0x10, vector, offer, events, end, applied, bye, eventPart, working, ready, routes
    case blobQuery = 0x20, blobList, blobRequest, blob, blobsStored, blobPart
  }

  func encoded() -> [UInt8] {
    var writer = WireWriter()
    switch self {
    case .hello(let version, let peer, let nonce):
      writer.byte(Kind.hello.rawValue)
      writer.raw(Self.magic)
      writer.byte(version)
      writer.raw(peer.bytes)
      writer.raw(nonce)
    case .challenge(let version, let peer, let nonce):
      writer.byte(Kind.challenge.rawValue)
      writer.byte(version)
      writer.raw(peer.bytes)
      writer.raw(nonce)
    case .proof(let mac, let device):
      writer.byte(Kind.proof.rawValue)
      writer.raw(mac)
      if let device { writer.raw(device.publicKey + device.signature) }
    case .welcome(let mac, let device):
      writer.byte(Kind.welcome.rawValue)
      writer.raw(mac)
      if let device { writer.raw(device.publicKey + device.signature) }
    case .failure(let message):
      writer.byte(Kind.failure.rawValue)
      writer.raw(Array(message.utf8))
    case .vectorRequest:
      writer.byte(Kind.vectorRequest.rawValue)
    case .vector(let vector, let wants):
      writer.byte(Kind.vector.rawValue)
      let entries = vector.sequences.sorted { $0.key < $1.key }
      writer.varint(entries.count)
      for (peer, sequence) in entries {
        writer.raw(peer.bytes)
        writer.varint(Int(clamping: sequence))
      }
      if !wants.isEmpty {
        writer.varint(wants.count)
        for want in wants { writer.raw(want.encoded) }
      }
    case .offer(let events, let bytes, let oldest):
      writer.byte(Kind.offer.rawValue)
      writer.varint(events)
      writer.varint(bytes)
      if let oldest { writer.raw(withUnsafeBytes(of: oldest.rawValue.bigEndian, Array.init)) }
    case .events(let events):
      writer.byte(Kind.events.rawValue)
      writer.varint(events.count)
      for event in events { writer.data(event) }
    case .eventPart(let total, let bytes):
      writer.byte(Kind.eventPart.rawValue)
      writer.varint(total)
      writer.raw(bytes)
    case .end:
      writer.byte(Kind.end.rawValue)
    case .working(let folded, let total):
      writer.byte(Kind.working.rawValue)
      writer.varint(folded)
      writer.varint(total)
    case .ready:
      writer.byte(Kind.ready.rawValue)
    case .routes(let routes):
      writer.byte(Kind.routes.rawValue)
      writer.varint(routes.count)
      for route in routes { writer.raw(route.encoded) }
    case .applied(let events, let duplicates, let rowChanges):
      writer.byte(Kind.applied.rawValue)
      writer.varint(events)
      writer.varint(duplicates)
      writer.varint(rowChanges)
    case .bye:
      writer.byte(Kind.bye.rawValue)
    case .blobQuery(let hashes):
      writer.byte(Kind.blobQuery.rawValue)
      Self.write(hashes, into: &writer)
    case .blobList(let hashes):
      writer.byte(Kind.blobList.rawValue)
      Self.write(hashes, into: &writer)
    case .blobRequest(let hashes):
      writer.byte(Kind.blobRequest.rawValue)
      Self.write(hashes, into: &writer)
    case .blob(let hash, let bytes):
      writer.byte(Kind.blob.rawValue)
      writer.raw(hash.bytes)
      writer.raw(bytes)
    case .blobsStored(let count, let bytes):
      writer.byte(Kind.blobsStored.rawValue)
      writer.varint(count)
      writer.varint(bytes)
    case .blobPart(let hash, let total, let bytes):
      writer.byte(Kind.blobPart.rawValue)
      writer.raw(hash.bytes)
      writer.varint(total)
      writer.raw(bytes)
    }
    return writer.bytes
  }

  /// Decodes one message; anything but a well-formed message throws.
  init(decoding bytes: [UInt8]) throws(WireReader.Malformed) {
    var reader = WireReader(bytes)
    let tag = try reader.byte()
    guard let kind = Kind(rawValue: tag) else { throw WireReader.Malformed(description: "unknown message type \(tag)") }
    func peer() throws(WireReader.Malformed) -> PeerID {
      guard let peer = PeerID(bytes: try reader.raw(16)) else { throw WireReader.Malformed(description: "bad peer id") }
      return peer
    }
    switch kind {
    case .hello:
      guard try reader.raw(4) == Self.magic else {
        throw WireReader.Malformed(description: "not a Chronicle sync client (no CHRN magic)")
      }
      let version = try reader.byte()
      self = .hello(version: version, peer: try peer(), nonce: try reader.raw(Self.nonceSize))
    case .challenge:
      let version = try reader.byte()
      self = .challenge(version: version, peer: try peer(), nonce: try reader.raw(Self.nonceSize))
    case .proof:
      self = .proof(try reader.raw(32), device: try DeviceProof.read(&reader))
    case .welcome:
      self = .welcome(proof: try reader.raw(32), device: try DeviceProof.read(&reader))
    case .failure:
      self = .failure(String(decoding: try reader.raw(reader.remaining), as: UTF8.self))
    case .vectorRequest:
      self = .vectorRequest
    case .vector:
      let count = try reader.varint()
      guard count <= reader.remaining / 17 else { throw WireReader.Malformed(description: "vector claims \(count) entries, more than its bytes hold") }
      var sequences: [PeerID: UInt64] = [:]
      for _ in 0..<count {
        let origin = try peer()
        sequences[origin] = UInt64(try reader.varint())
      }
      var wants: [RouteWant] = []
      if reader.remaining > 0 {
        let count = try reader.varint()
        guard count <= RouteWant.maxPerMessage, count <= reader.remaining / RouteWant.encodedSize else {
          throw WireReader.Malformed(description: "vector claims \(count) route wants, over the limit of \(RouteWant.maxPerMessage) or its bytes")
        }
        for _ in 0..<count {
          guard let want = RouteWant(encoded: try reader.raw(RouteWant.encodedSize)) else { throw WireReader.Malformed(description: "a malformed route want") }
          wants.append(want)
        }
      }
      self = .vector(VersionVector(sequences), wants: wants)
    case .offer:
      let events = try reader.varint(), bytes = try reader.varint()
      let oldest = reader.remaining == 0 ? nil : HLCTimestamp(rawValue: try reader.raw(8).reduce(0) { $0 << 8 | UInt64($1) })
      self = .offer(events: events, bytes: bytes, oldest: oldest)
    case .events:
      // Counted before anything is decoded: a frame of tiny events costs
      // a receiver far more than its bytes.
      let count = try reader.varint()
      guard count <= Self.maxEventsPerMessage, count <= reader.remaining / (1 + EventCodec.minimumSize) else {
        throw WireReader.Malformed(
          description: "claims \(count) events, over the limit of \(Self.maxEventsPerMessage) a message or what its bytes hold (every event is at least \(EventCodec.minimumSize) bytes)")
      }
      var events: [[UInt8]] = []
      events.reserveCapacity(count)
      for index in 0..<count {
        let event = try reader.data()
        guard event.count >= EventCodec.minimumSize else {
          throw WireReader.Malformed(description: "event \(index + 1) of its \(count) is \(event.count) bytes, shorter than any event (\(EventCodec.minimumSize))")
        }
        events.append(event)
      }
      self = .events(events)
    case .eventPart:
      let total = try reader.varint()
      self = .eventPart(total: total, bytes: try reader.raw(reader.remaining))
    case .end:
      self = .end
    case .working:
      self = .working(folded: try reader.varint(), total: try reader.varint())
    case .ready:
      self = .ready
    case .routes:
      let count = try reader.varint()
      guard count <= Self.maxRoutesPerMessage, count <= reader.remaining / StoredEventRoute.encodedSize else {
        throw WireReader.Malformed(description: "claims \(count) routes, more than its bytes hold or the limit of \(Self.maxRoutesPerMessage)")
      }
      var routes: [StoredEventRoute] = []
      routes.reserveCapacity(count)
      for _ in 0..<count {
        guard let route = StoredEventRoute(encoded: try reader.raw(StoredEventRoute.encodedSize)) else {
          throw WireReader.Malformed(description: "a route with a bad origin or epoch")
        }
        routes.append(route)
      }
      self = .routes(routes)
    case .applied:
      self = .applied(events: try reader.varint(), duplicates: try reader.varint(), rowChanges: try reader.varint())
    case .bye:
      self = .bye
    case .blobQuery:
      self = .blobQuery(try Self.readHashes(&reader))
    case .blobList:
      self = .blobList(try Self.readHashes(&reader))
    case .blobRequest:
      self = .blobRequest(try Self.readHashes(&reader))
    case .blob:
      let hash = BlobHash(bytes: try reader.raw(32))!
      self = .blob(hash, try reader.raw(reader.remaining))
    case .blobsStored:
      self = .blobsStored(count: try reader.varint(), bytes: try reader.varint())
    case .blobPart:
      let hash = BlobHash(bytes: try reader.raw(32))!
      let total = try reader.varint()
      self = .blobPart(hash, total: total, bytes: try reader.raw(reader.remaining))
    }
    try reader.expectEnd()
  }

  private static func write(_ hashes: [BlobHash], into writer: inout WireWriter) {
    writer.varint(hashes.count)
    for hash in hashes { writer.raw(hash.bytes) }
  }

  private static func readHashes(_ reader: inout WireReader) throws(WireReader.Malformed) -> [BlobHash] {
    let count = try reader.varint()
    guard count <= reader.remaining / 32 else { throw WireReader.Malformed(description: "claims \(count) blob hashes, more than its bytes hold") }
    var hashes: [BlobHash] = []
    hashes.reserveCapacity(count)
    for _ in 0..<count { hashes.append(BlobHash(bytes: try reader.raw(32))!) }
    return hashes
  }

  /// How the message is named in errors ("waiting for ...").
  var name: String {
    switch self {
    case .hello: "hello"
    case .challenge: "challenge"
    case .proof: "proof"
    case .welcome: "welcome"
    case .failure: "failure"
    case .vectorRequest: "vector request"
    case .vector: "version vector"
    case .offer: "offer"
    case .events: "events"
    case .eventPart: "part of an event"
    case .end: "end of stream"
    case .working: "progress of its preparation"
    case .ready: "ready"
    case .routes: "routes"
    case .applied: "applied report"
    case .bye: "bye"
    case .blobQuery: "blob query"
    case .blobList: "blob list"
    case .blobRequest: "blob request"
    case .blob: "blob"
    case .blobPart: "part of a blob"
    case .blobsStored: "blobs stored report"
    }
  }
}
