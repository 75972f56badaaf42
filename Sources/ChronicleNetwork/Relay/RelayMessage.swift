import Chronicle
import Foundation

/// The messages of the relay protocol (`Schemas/SYNC-PROTOCOL.md`, "Relay"),
/// one per binary WebSocket message.
package enum RelayMessage: Equatable, Sendable {
  /// Relay, first: the protocol version and a fresh nonce the device signs.
  case challenge(version: UInt8, nonce: [UInt8])
  /// Device: the group it syncs, who it is (its key and signature of the
  /// challenge and of the relay it addressed, ``relayName(of:)``), and the
  /// membership events it holds (signed, in the clear: they carry no data),
  /// from which the relay learns who belongs.
  case hello(
    version: UInt8, group: UUID, device: PeerID, publicKey: [UInt8], signature: [UInt8], relay: String, membership: [[UInt8]])
  /// Relay: admitted; what it holds of the group, the largest sealed event
  /// it accepts, and the join requests waiting for an admin (signed
  /// membership events, in the clear), for an admin's device to admit; and,
  /// for a member, the group's membership history the relay holds (which
  /// carries the sealed grants of the group's keys: a device opens the
  /// events it pulls with them).
  case welcome(VersionVector, maxEventBytes: Int, joinRequests: [[UInt8]], membership: [[UInt8]])
  /// Device: events of one origin or more (its own, and other members' it
  /// forwards), each the next in its origin's sequence at the relay.
  case push([SealedEvent])
  /// Relay: it holds the device's events up to `upTo`, `new` of them just stored.
  case stored(upTo: UInt64, new: Int)
  /// Device: send me the group's events beyond this vector; with `live`,
  /// keep sending new ones as they arrive. `wants`: ranges of events it
  /// holds without their origins' routes, which it would forward.
  case pull(VersionVector, live: Bool, wants: [RouteWant] = [])
  /// Relay, before the events of a pull: the routes it holds of the
  /// events the device wants routes of (read from their sealed form).
  case routes([StoredEventRoute])
  /// Device, while watching: the membership events it holds (as in its
  /// hello), sent again when its log gained some, so the relay learns of a
  /// revocation without waiting for a new connection.
  case membership([[UInt8]])
  /// Relay: events of the group.
  case events([SealedEvent])
  /// Relay: every event it held when the pull began has been sent.
  case caughtUp
  /// Either side: the session ends, and why. `retryable`: the same request
  /// may succeed later (a rate limit, a relay shutting down).
  case failure(String, retryable: Bool)
  /// Device: done.
  case bye

  package static let protocolVersion: UInt8 = 4
  package static let nonceSize = 32
  /// The most events one push or events message holds (devices and relays
  /// send at most 1,000): checked before any is decoded, so a message of
  /// millions of empty events costs nothing.
  package static let maxEventsPerMessage = 4_096
  /// The fewest bytes a sealed event has: a data event's form, epoch, nonce
  /// and tag (``RelayEventCipher/overhead``); a membership event in the
  /// clear is longer still.
  package static let minSealedEventBytes = 61
  /// The fewest bytes a signed membership event has: its signature block
  /// (key and signature, 96 bytes) and CRC alone take 100.
  package static let minMembershipEventBytes = 100
  /// The most membership events one message lists.
  package static let maxMembershipEventsPerMessage = 100_000
  /// The most entries a version vector lists (one per device of a group).
  package static let maxVectorEntries = 1_000_000

  private enum Kind: UInt8 {
    case challenge = 1, hello, welcome
    case push = 0x10, stored, pull, events, caughtUp, membership, routes
    case failure = 0x0F, bye = 0x1F
  }

  /// What the device signs in its hello: the challenge, and the relay it
  /// addressed, so that no relay can pass a device's hello on to another.
  package static func helloTranscript(nonce: [UInt8], group: UUID, device: PeerID, publicKey: [UInt8], relay: String) -> [UInt8] {
    let name = Array(relay.utf8)
    return Array("chronicle-relay v2 hello".utf8) + nonce + PeerID(group).bytes + device.bytes + publicKey + [UInt8(clamping: name.count)] + name
  }

  /// The longest relay name a hello carries.
  package static let maxRelayNameBytes = 255

  /// How a relay is named in a hello: the host (lowercased) and port of its
  /// address, the port left out when it is the default (80, 443) or none.
  /// `authority` is `HOST[:PORT]`, as in a URL or an HTTP `Host` header.
  package static func relayName(of authority: String) -> String {
    var name = authority.lowercased()
    for port in [":80", ":443"] where name.hasSuffix(port) { name.removeLast(port.count) }
    return name
  }

  /// ``relayName(of:)`` of the relay at `url` (`ws[s]://HOST[:PORT]/…`).
  package static func relayName(ofURL url: String) -> String {
    let components = URLComponents(string: url)
    return relayName(of: (components?.host ?? "") + (components?.port.map { ":\($0)" } ?? ""))
  }

  package func encoded() -> [UInt8] {
    var writer = WireWriter()
    switch self {
    case .challenge(let version, let nonce):
      writer.byte(Kind.challenge.rawValue)
      writer.byte(version)
      writer.raw(nonce)
    case .hello(let version, let group, let device, let publicKey, let signature, let relay, let membership):
      writer.byte(Kind.hello.rawValue)
      writer.byte(version)
      writer.raw(PeerID(group).bytes)
      writer.raw(device.bytes)
      writer.raw(publicKey)
      writer.raw(signature)
      writer.data(Array(relay.utf8.prefix(Self.maxRelayNameBytes)))
      writer.varint(membership.count)
      for event in membership { writer.data(event) }
    case .welcome(let vector, let maxEventBytes, let joinRequests, let membership):
      writer.byte(Kind.welcome.rawValue)
      Self.write(vector, to: &writer)
      writer.varint(maxEventBytes)
      writer.varint(joinRequests.count)
      for event in joinRequests { writer.data(event) }
      writer.varint(membership.count)
      for event in membership { writer.data(event) }
    case .push(let events):
      writer.byte(Kind.push.rawValue)
      Self.write(events, to: &writer)
    case .stored(let upTo, let new):
      writer.byte(Kind.stored.rawValue)
      writer.varint(Int(clamping: upTo))
      writer.varint(new)
    case .pull(let vector, let live, let wants):
      writer.byte(Kind.pull.rawValue)
      writer.byte(live ? 1 : 0)
      Self.write(vector, to: &writer)
      writer.varint(wants.count)
      for want in wants { writer.raw(want.encoded) }
    case .routes(let routes):
      writer.byte(Kind.routes.rawValue)
      writer.varint(routes.count)
      for route in routes { writer.raw(route.encoded) }
    case .events(let events):
      writer.byte(Kind.events.rawValue)
      Self.write(events, to: &writer)
    case .caughtUp:
      writer.byte(Kind.caughtUp.rawValue)
    case .membership(let events):
      writer.byte(Kind.membership.rawValue)
      writer.varint(events.count)
      for event in events { writer.data(event) }
    case .failure(let message, let retryable):
      writer.byte(Kind.failure.rawValue)
      writer.byte(retryable ? 1 : 0)
      writer.data(Array(message.utf8))
    case .bye:
      writer.byte(Kind.bye.rawValue)
    }
    return writer.bytes
  }

  /// Decodes one message.
  ///
  /// - Throws: ``WireReader/Malformed`` naming what is wrong.
  package init(decoding bytes: [UInt8]) throws(WireReader.Malformed) {
    var reader = WireReader(bytes)
    let tag = try reader.byte()
    guard let kind = Kind(rawValue: tag) else { throw WireReader.Malformed(description: "unknown message type \(tag)") }
    switch kind {
    case .challenge:
      self = .challenge(version: try reader.byte(), nonce: try reader.raw(Self.nonceSize))
    case .hello:
      let version = try reader.byte()
      let group = try Self.peer(&reader).uuid
      let device = try Self.peer(&reader)
      let publicKey = try reader.raw(32)
      let signature = try reader.raw(64)
      let length = try reader.varint()
      guard length <= Self.maxRelayNameBytes else { throw WireReader.Malformed(description: "a relay name of \(length) bytes") }
      let relay = String(decoding: try reader.raw(length), as: UTF8.self)
      let membership = try Self.membershipEvents(&reader, in: "hello")
      self = .hello(
        version: version, group: group, device: device, publicKey: publicKey, signature: signature, relay: relay, membership: membership)
    case .welcome:
      let vector = try Self.vector(&reader)
      let maxEventBytes = try reader.varint()
      let requests = try Self.membershipEvents(&reader, in: "welcome's join requests")
      let membership = try Self.membershipEvents(&reader, in: "welcome")
      self = .welcome(vector, maxEventBytes: maxEventBytes, joinRequests: requests, membership: membership)
    case .push:
      self = .push(try Self.events(&reader))
    case .stored:
      self = .stored(upTo: UInt64(try reader.varint()), new: try reader.varint())
    case .pull:
      let live = try reader.byte()
      guard live <= 1 else { throw WireReader.Malformed(description: "pull flag \(live)") }
      let vector = try Self.vector(&reader)
      let count = try reader.varint()
      guard count <= RouteWant.maxPerMessage, count <= reader.remaining / RouteWant.encodedSize else {
        throw WireReader.Malformed(description: "pull claims \(count) route wants, over the limit of \(RouteWant.maxPerMessage) or its bytes")
      }
      var wants: [RouteWant] = []
      for _ in 0..<count {
        guard let want = RouteWant(encoded: try reader.raw(RouteWant.encodedSize)) else { throw WireReader.Malformed(description: "a malformed route want") }
        wants.append(want)
      }
      self = .pull(vector, live: live == 1, wants: wants)
    case .routes:
      let count = try reader.varint()
      guard count <= RouteWant.maxAnswered, count <= reader.remaining / StoredEventRoute.encodedSize else {
        throw WireReader.Malformed(description: "claims \(count) routes, over the limit of \(RouteWant.maxAnswered) or its bytes")
      }
      var routes: [StoredEventRoute] = []
      for _ in 0..<count {
        guard let route = StoredEventRoute(encoded: try reader.raw(StoredEventRoute.encodedSize)) else {
          throw WireReader.Malformed(description: "a malformed route")
        }
        routes.append(route)
      }
      self = .routes(routes)
    case .events:
      self = .events(try Self.events(&reader))
    case .caughtUp:
      self = .caughtUp
    case .membership:
      self = .membership(try Self.membershipEvents(&reader, in: "membership update"))
    case .failure:
      let retryable = try reader.byte() == 1
      self = .failure(String(decoding: try reader.data(), as: UTF8.self), retryable: retryable)
    case .bye:
      self = .bye
    }
    try reader.expectEnd()
  }

  /// A short name for errors ("events", "welcome").
  package var name: String {
    switch self {
    case .challenge: "challenge"
    case .hello: "hello"
    case .welcome: "welcome"
    case .push: "push"
    case .stored: "stored report"
    case .pull: "pull"
    case .routes: "routes"
    case .events: "events"
    case .caughtUp: "caught-up mark"
    case .membership: "membership update"
    case .failure: "failure"
    case .bye: "bye"
    }
  }

  private static func peer(_ reader: inout WireReader) throws(WireReader.Malformed) -> PeerID {
    let offset = reader.offset
    guard let peer = PeerID(bytes: try reader.raw(16)) else { throw WireReader.Malformed(description: "bad peer id at byte \(offset)") }
    return peer
  }

  private static func write(_ vector: VersionVector, to writer: inout WireWriter) {
    let entries = vector.sequences.sorted { $0.key < $1.key }
    writer.varint(entries.count)
    for (peer, sequence) in entries {
      writer.raw(peer.bytes)
      writer.varint(Int(clamping: sequence))
    }
  }

  private static func vector(_ reader: inout WireReader) throws(WireReader.Malformed) -> VersionVector {
    let count = try reader.varint()
    guard count <= maxVectorEntries else { throw WireReader.Malformed(description: "vector claims \(count) entries, over the limit of \(maxVectorEntries)") }
    guard count <= reader.remaining / 17 else { throw WireReader.Malformed(description: "vector claims \(count) entries, more than its bytes hold") }
    var sequences: [PeerID: UInt64] = [:]
    for _ in 0..<count { sequences[try peer(&reader)] = UInt64(try reader.varint()) }
    return VersionVector(sequences)
  }

  private static func write(_ events: [SealedEvent], to writer: inout WireWriter) {
    writer.varint(events.count)
    for event in events {
      writer.raw(event.origin.bytes)
      writer.varint(Int(clamping: event.sequence))
      writer.data(event.sealed)
      writer.data(event.route)
    }
  }

  private static func events(_ reader: inout WireReader) throws(WireReader.Malformed) -> [SealedEvent] {
    let count = try reader.varint()
    guard count <= maxEventsPerMessage else {
      throw WireReader.Malformed(description: "claims \(count) events in one message, over the limit of \(maxEventsPerMessage)")
    }
    // Origin, a sequence and two lengths of at least a byte each, and the sealed bytes.
    guard count <= reader.remaining / (16 + 1 + 1 + 1 + minSealedEventBytes) else {
      throw WireReader.Malformed(description: "claims \(count) events, more than its bytes hold")
    }
    var events: [SealedEvent] = []
    events.reserveCapacity(count)
    for _ in 0..<count {
      let origin = try peer(&reader)
      let sequence = try reader.varint()
      guard sequence > 0 else { throw WireReader.Malformed(description: "event sequence 0") }
      let sealed = try reader.data()
      guard sealed.count >= minSealedEventBytes else {
        throw WireReader.Malformed(description: "event \(origin.shortDescription):\(sequence) is \(sealed.count) bytes, shorter than any sealed event")
      }
      let route = try reader.data()
      guard route.isEmpty || route.count == EventRoute.signatureSize else {
        throw WireReader.Malformed(description: "event \(origin.shortDescription):\(sequence) has a route signature of \(route.count) bytes (64 or none)")
      }
      events.append(SealedEvent(origin: origin, sequence: UInt64(sequence), sealed: sealed, route: route))
    }
    return events
  }

  /// A count, then that many signed membership events, none shorter than
  /// the shortest there can be: checked against the bytes left before any is
  /// read, so a message cannot claim millions of them.
  private static func membershipEvents(_ reader: inout WireReader, in message: String) throws(WireReader.Malformed) -> [[UInt8]] {
    let count = try reader.varint()
    guard count <= maxMembershipEventsPerMessage else {
      throw WireReader.Malformed(description: "\(message) claims \(count) membership events, over the limit of \(maxMembershipEventsPerMessage)")
    }
    guard count <= reader.remaining / (1 + minMembershipEventBytes) else {
      throw WireReader.Malformed(description: "\(message) claims \(count) membership events, more than its bytes hold")
    }
    var events: [[UInt8]] = []
    events.reserveCapacity(count)
    for index in 0..<count {
      let event = try reader.data()
      guard event.count >= minMembershipEventBytes else {
        throw WireReader.Malformed(
          description: "membership event \(index) of the \(message) is \(event.count) bytes, shorter than any signed membership event")
      }
      events.append(event)
    }
    return events
  }
}
