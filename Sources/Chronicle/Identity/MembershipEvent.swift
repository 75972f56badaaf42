import Foundation
import GRDB

/// A signed event that carries changes of a group's member list and nothing
/// else: what a relay reads, in the clear, to know who belongs to a group
/// without being able to read any of the group's data.
package struct MembershipEvent: Sendable {
  package let origin: PeerID
  package let sequence: UInt64
  package let timestamp: HLCTimestamp
  /// The key that signed it (verified).
  package let signer: [UInt8]
  package let changes: [MembershipChange]
  /// The serialized event.
  package let bytes: [UInt8]

  /// Why bytes are not a membership event a relay can accept.
  package enum Problem: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case unsigned
    case badSignature(String)
    case carriesData

    package var description: String {
      switch self {
      case .malformed(let reason): "it is not a valid event: \(reason)"
      case .unsigned: "it is not signed (a relay admits signed membership events only)"
      case .badSignature(let reason): reason
      case .carriesData: "it carries more than membership changes (data is sent encrypted, never in the clear)"
      }
    }
  }

  /// Decodes `bytes` and checks its signature, that the signer's key is its
  /// origin's when the origin is key-derived, and that it carries only
  /// membership changes.
  package init(verifying bytes: [UInt8]) throws(Problem) {
    try self.init(bytes, verifying: true)
  }

  /// Decodes `bytes` whose signature was checked when they were stored (by
  /// a relay, or when a log admitted them), without checking it again.
  package init(stored bytes: [UInt8]) throws(Problem) {
    try self.init(bytes, verifying: false)
  }

  private init(_ bytes: [UInt8], verifying: Bool) throws(Problem) {
    let event: ChangeEvent
    do {
      event = try EventCodec.decodeEncoded(bytes).event
    } catch {
      throw .malformed("\(error)")
    }
    guard bytes[4] >= 2 else { throw .unsigned }
    let signer: [UInt8]
    if verifying {
      do {
        signer = try EventSignature.verifiedSigner(of: bytes)
      } catch {
        throw .badSignature(error.description)
      }
    } else {
      let end = bytes.count - 4
      signer = Array(bytes[(end - EventSignature.blockSize)..<(end - EventSignature.signatureSize)])
    }
    if event.origin.isKeyDerived, PeerID(publicKey: signer) != event.origin {
      throw .badSignature(EventSignature.Problem.notTheOriginsKey.description)
    }
    var changes: [MembershipChange] = []
    for operation in event.operations {
      guard case .membership(let change) = operation else { throw .carriesData }
      changes.append(change)
    }
    guard !changes.isEmpty else { throw .carriesData }
    origin = event.origin
    sequence = event.sequence
    timestamp = event.timestamp
    self.signer = signer
    self.changes = changes
    self.bytes = bytes
  }
}

extension ChronicleDatabase {
  /// The signed events of this database's log that made its group's member
  /// list (creation, additions, joins, revocations), oldest first: what a
  /// relay needs to admit this device. Empty while in no group. Their
  /// signatures are not checked again here (the log admitted them, and the
  /// relay checks them): a watching device calls this each time its log grows.
  package func membershipEvents() throws -> [MembershipEvent] {
    try sealOwnEvents()
    return try read { db in
      // The member tables name each change's writer and clock reading; the
      // events are looked up by those, then decoded to keep the right ones.
      let candidates = try Row.fetchAll(
        db,
        sql: """
          SELECT founder, created_hlc FROM chronicle_group WHERE founder IS NOT NULL
          UNION SELECT peer_id, added_hlc FROM chronicle_members
          UNION SELECT added_by, added_hlc FROM chronicle_members WHERE added_by IS NOT NULL
          UNION SELECT revoked_by, revoked_hlc FROM chronicle_members WHERE revoked_by IS NOT NULL
          """)
      var found: [EventID: MembershipEvent] = [:]
      for candidate in candidates {
        guard let origin = candidate[0] as Data?, let hlc = candidate[1] as Int64? else { continue }
        for payload in try EventLog.payloads(db, originBytes: origin, timestamp: hlc) {
          guard let event = try? MembershipEvent(stored: Array(payload)) else { continue }
          found[EventID(origin: event.origin, sequence: event.sequence)] = event
        }
      }
      return found.values.sorted { ($0.timestamp, $0.origin, $0.sequence) < ($1.timestamp, $1.origin, $1.sequence) }
    }
  }
}
