import Foundation

/// A remote event with its serialized form, as read from a bundle.
struct IncomingEvent: Sendable {
  var event: ChangeEvent
  var encoded: EventCodec.Encoded
  /// The signer's key, when its signature was checked before its body was
  /// decoded (admission then takes it as checked).
  var verifiedSigner: [UInt8]?
  /// Why it is refused without its body being decoded, and whether that
  /// is final (``EventRefusal/settled``): `event` then holds only the
  /// fields of its envelope, and no change.
  var refusedUndecoded: (reason: String, settled: Bool)?

  /// Each of `serialized` decoded (envelope, CRC-32, decompressed body), on
  /// all cores, in order: the event, or what is wrong with its bytes.
  ///
  /// With a `gate` (a database in a group), nothing is inflated before it
  /// is known to be worth it: a signed event's signature and key-derived
  /// origin are checked first, and a forgery is refused undecoded; an
  /// unsigned event of a key-derived device is refused undecoded; the
  /// events of a device the member list does not admit (a stranger, or a
  /// revoked device past its cut-off) are inflated only up to
  /// ``DecodeGate/strangerBodyLimit`` each and
  /// ``DecodeGate/strangerBatchBudget`` in all, the rest left for
  /// ``DecodeOutcome/deferred`` (or, for a revoked device, refused for good:
  /// an event that large carries writes).
  static func decodeAll(_ serialized: [[UInt8]], gate: DecodeGate? = nil) -> [DecodeOutcome] {
    let allowances = gate.map { $0.allowances(serialized) } ?? Array(repeating: .whole, count: serialized.count)
    return Array(zip(serialized, allowances)).concurrentMap { bytes, allowance in decode(bytes, gate: gate, allowance: allowance) }
  }

  /// What ``decodeAll(_:gate:)`` made of one event.
  enum DecodeOutcome: Sendable {
    case decoded(IncomingEvent)
    /// Malformed: no event at all.
    case malformed(EventFormatError)
    /// An event of a device the member list does not name, whose body is
    /// over the limit for such a device: decode it once its admission is known.
    case deferred(origin: PeerID, sequence: UInt64)
  }

  private static func decode(_ bytes: [UInt8], gate: DecodeGate?, allowance: DecodeGate.Allowance) -> DecodeOutcome {
    func decoded(signer: [UInt8]?) -> DecodeOutcome {
      do {
        let (event, encoded) = try EventCodec.decodeEncoded(bytes, maxBodySize: allowance.maxBodySize)
        return .decoded(IncomingEvent(event: event, encoded: encoded, verifiedSigner: signer))
      } catch {
        return .malformed(error)
      }
    }
    guard gate != nil, let header = try? EventCodec.decodeHeader(bytes) else { return decoded(signer: nil) }
    var signer: [UInt8]?
    if bytes[4] >= 2 {
      do {
        signer = try EventSignature.verifiedSigner(of: bytes)
      } catch {
        return refused(bytes, header, EventSignature.reason(error), settled: false)
      }
      if let signer, header.origin.isKeyDerived, PeerID(publicKey: signer) != header.origin {
        return refused(bytes, header, EventSignature.reason(.notTheOriginsKey), settled: false)
      }
    } else if header.origin.isKeyDerived {
      return refused(bytes, header, EventSignature.reason(.unsigned), settled: false)
    }
    // (An older device's id is bound to its key by admission, which reads the log's device records.)
    switch allowance {
    case .whole, .upTo: break
    case .later: return .deferred(origin: header.origin, sequence: header.sequence)
    case .refused(let reason): return refused(bytes, header, reason, settled: signer != nil)
    }
    let outcome = decoded(signer: signer)
    if case .upTo = allowance, case .malformed(let error) = outcome, case .tooLarge = error.problem {
      return .deferred(origin: header.origin, sequence: header.sequence)
    }
    return outcome
  }

  /// An event refused on its envelope alone: its body is never inflated.
  private static func refused(
    _ bytes: [UInt8], _ header: (origin: PeerID, sequence: UInt64, timestamp: HLCTimestamp), _ reason: String, settled: Bool
  ) -> DecodeOutcome {
    let event = ChangeEvent(origin: header.origin, sequence: header.sequence, timestamp: header.timestamp, schemaEpoch: 0, tables: [], operations: [])
    let encoded = EventCodec.Encoded(bytes: bytes, rawBodySize: 0, checksum: EventCodec.storedChecksum(of: bytes))
    return .decoded(IncomingEvent(event: event, encoded: encoded, refusedUndecoded: (reason, settled)))
  }
}

/// What a database knows before it inflates received events: its group's
/// member list. Nil (no gate) while it is in no group.
struct DecodeGate: Sendable {
  var group: UUID
  /// Every device of the member list, whatever its state.
  var members: [PeerID: GroupMember]
  /// The largest body inflated for an event of a device the member list
  /// does not admit (a join request, a device admitted in the same batch),
  /// so that a stranger holding the group key cannot make this device
  /// allocate more; nil: no limit (bundles, which merge in one pass).
  var strangerBodyLimit: Int? = Self.defaultStrangerBodyLimit
  static let defaultStrangerBodyLimit = 4 << 20
  /// The most body bytes inflated in one batch for such events.
  static let strangerBatchBudget = 16 << 20

  /// How much of an event's body may be inflated.
  enum Allowance: Sendable {
    case whole
    case upTo(Int)
    /// Nothing yet: decide once the batch is merged.
    case later
    /// Nothing: refused, for this reason.
    case refused(String)

    var maxBodySize: Int {
      switch self {
      case .upTo(let limit): limit
      default: EventCodec.maximumBodySize
      }
    }
  }

  /// Whether the member list admits `origin`'s event at `sequence` (an
  /// active member's, or a revoked one's up to its cut-off).
  func admits(_ origin: PeerID, _ sequence: UInt64) -> Bool {
    guard let member = members[origin] else { return false }
    return member.revokedAfterSequence.map { sequence <= $0 } ?? true
  }

  /// Each event's allowance, from the sizes their envelopes declare, in
  /// order: within the per-event limit and the batch's budget, a stranger's
  /// is inflated; past them, it waits (a revoked device's is refused).
  func allowances(_ serialized: [[UInt8]]) -> [Allowance] {
    guard let limit = strangerBodyLimit else { return Array(repeating: .whole, count: serialized.count) }
    var spent = 0
    return serialized.map { bytes in
      guard let envelope = EventCodec.declaredBody(of: bytes) else { return .whole }  // malformed: decoding says why
      if admits(envelope.origin, envelope.sequence) { return .whole }
      let size = Int(clamping: envelope.size)
      if size <= limit, spent + size <= Self.strangerBatchBudget {
        spent += size
        return .upTo(limit)
      }
      guard let member = members[envelope.origin] else { return .later }
      // A revoked device's event past its cut-off, too large to be a
      // membership change: its writes are refused for good.
      var state = GroupState(group: group)
      state.members[envelope.origin] = member
      return .refused(state.refusal(ofEventFrom: envelope.origin, sequence: envelope.sequence, writes: true) ?? "it was written after its device's revocation")
    }
  }
}
