/// A remote event with its serialized form, as read from a bundle.
struct IncomingEvent: Sendable {
  var event: ChangeEvent
  var encoded: EventCodec.Encoded
  /// The signer's key, when its signature was checked before its body was
  /// decoded (admission then takes it as checked).
  var verifiedSigner: [UInt8]?
  /// Why it is refused without its body being decoded (its signature does
  /// not hold, or is not its origin's): `event` then holds only the fields
  /// of its envelope, and no change.
  var refusedUndecoded: String?

  /// Each of `serialized` decoded (envelope, CRC-32, decompressed body), on
  /// all cores, in order: the event, or what is wrong with its bytes.
  ///
  /// With a `gate`, a signed event's signature is checked before its body
  /// is inflated (a body may declare up to 1 GiB): one that does not verify,
  /// or is not its origin's key, is refused undecoded; one of a device the
  /// gate does not know is decoded only when its body is small
  /// (``DecodeGate/strangerBodyLimit``), and otherwise left for
  /// ``DecodeOutcome/deferred``.
  static func decodeAll(_ serialized: [[UInt8]], gate: DecodeGate? = nil) -> [DecodeOutcome] {
    serialized.concurrentMap { bytes in decode(bytes, gate: gate) }
  }

  /// What ``decodeAll(_:gate:)`` made of one event.
  enum DecodeOutcome: Sendable {
    case decoded(IncomingEvent)
    /// Malformed: no event at all.
    case malformed(EventFormatError)
    /// A signed event of a device the gate does not know, whose body is
    /// over the limit for such a device: decode it once its admission is known.
    case deferred(origin: PeerID, sequence: UInt64)
  }

  private static func decode(_ bytes: [UInt8], gate: DecodeGate?) -> DecodeOutcome {
    func decoded(maxBodySize: Int = EventCodec.maximumBodySize, signer: [UInt8]? = nil) -> DecodeOutcome {
      do {
        let (event, encoded) = try EventCodec.decodeEncoded(bytes, maxBodySize: maxBodySize)
        return .decoded(IncomingEvent(event: event, encoded: encoded, verifiedSigner: signer))
      } catch {
        return .malformed(error)
      }
    }
    guard let gate, bytes.count > 4, bytes[4] >= 2, let header = try? EventCodec.decodeHeader(bytes) else { return decoded() }
    let signer: [UInt8]
    do {
      signer = try EventSignature.verifiedSigner(of: bytes)
    } catch {
      return refused(bytes, header, EventSignature.reason(error))
    }
    if header.origin.isKeyDerived, PeerID(publicKey: signer) != header.origin {
      return refused(bytes, header, EventSignature.reason(.notTheOriginsKey))
    }
    guard gate.devices.contains(header.origin) else {
      // A device this database does not know: perhaps admitted in this
      // very batch, perhaps no member at all. Its small events are decoded
      // (admission decides); a large one waits until it is known.
      guard let limit = gate.strangerBodyLimit else { return decoded(signer: signer) }
      let outcome = decoded(maxBodySize: limit, signer: signer)
      if case .malformed(let error) = outcome, case .tooLarge = error.problem {
        return .deferred(origin: header.origin, sequence: header.sequence)
      }
      return outcome
    }
    // (An older device's id is bound to its key by admission, which reads the log's device records.)
    return decoded(signer: signer)
  }

  /// An event refused on its envelope alone: its body is never inflated.
  private static func refused(
    _ bytes: [UInt8], _ header: (origin: PeerID, sequence: UInt64, timestamp: HLCTimestamp), _ reason: String
  ) -> DecodeOutcome {
    let event = ChangeEvent(origin: header.origin, sequence: header.sequence, timestamp: header.timestamp, schemaEpoch: 0, tables: [], operations: [])
    let encoded = EventCodec.Encoded(bytes: bytes, rawBodySize: 0, checksum: EventCodec.storedChecksum(of: bytes))
    return .decoded(IncomingEvent(event: event, encoded: encoded, refusedUndecoded: reason))
  }
}

/// What a database knows before it inflates received events: the devices
/// of its group. Nil (no gate) while it is in no group.
struct DecodeGate: Sendable {
  /// Every device of the member list, whatever its state.
  var devices: Set<PeerID>
  /// The largest body inflated for an event of a device the member list
  /// does not name (a join request, a device admitted in the same batch),
  /// so that a stranger holding the group key cannot make this device
  /// allocate more; nil: no limit (bundles, which merge in one pass).
  var strangerBodyLimit: Int? = Self.defaultStrangerBodyLimit
  static let defaultStrangerBodyLimit = 4 << 20
}
