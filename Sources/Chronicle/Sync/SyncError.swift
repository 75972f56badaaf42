import Foundation

/// Why a sync, an import or an export could not be done. Nothing of the
/// batch that failed was applied. (An event refused for what it is does not
/// fail its batch: see ``MergeReport/refused``.)
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A bundle or segment file is malformed: its name, the byte offset, the problem.
  case badBundle(source: String, offset: Int, reason: String)
  /// A received event is malformed: who sent it, its index in the batch, the problem.
  case malformedEvent(source: String, index: Int, reason: String)
  /// An event claims an identity that does not hold: an `origin:sequence`
  /// already held with different content, an event of this very peer that its
  /// log lacks, or an event in the segment folder of another peer.
  case forgedEvent(source: String, event: String, reason: String)
  /// The remote event was written at a newer schema epoch than this database's.
  case schemaAhead(source: String, event: String, remoteEpoch: UInt64, localEpoch: UInt64)
  /// A remote event refers to a table or column this database does not have
  /// at the same schema epoch.
  case schemaMismatch(source: String, event: String, reason: String)
  /// A version vector could not be parsed.
  case invalidVersionVector(text: String)
  /// The transport failed (folder unreadable, connection lost, ...).
  case transport(String)
  /// The peer asks for events this log compacted into its baseline.
  case compactedAway(origin: PeerID, needed: UInt64, baseline: UInt64)
  /// A trigger on this database wrote a tracked table while remote events
  /// were merged: a change no event would describe.
  case triggerWroteWhileMerging(source: String, table: String)

  /// Whether the error refuses input a peer sent (malformed, forged,
  /// unauthenticated or damaged events), as opposed to a failure of this
  /// side or of the transport. Tools exit 1 on these (the rest was applied).
  public var isRefusedInput: Bool {
    switch self {
    case .badBundle, .malformedEvent, .forgedEvent: true
    default: false
    }
  }

  /// Whether the error is about one received event alone, which a merge
  /// then refuses (recorded, reported) while the rest of its batch applies.
  var refusesItsEventOnly: Bool {
    switch self {
    case .forgedEvent, .schemaAhead, .schemaMismatch: true
    default: false
    }
  }

  /// Why the one event is refused, without the batch's framing.
  var eventRefusalReason: String {
    switch self {
    case .forgedEvent(_, _, let reason): reason
    case .schemaAhead(_, _, let remote, let local):
      "it was written at schema epoch \(remote), this database is at epoch \(local): upgrade the app (run its migrations) on this peer; it is taken at the next sync after"
    case .schemaMismatch(_, _, let reason): "it does not fit this database's schema: \(reason); run the same migrations on both peers"
    default: description
    }
  }

  public var description: String {
    switch self {
    case .badBundle(let source, let offset, let reason):
      "\(source): bad event bundle at byte \(offset): \(reason). Nothing from this file was applied; get a fresh copy from its peer."
    case .malformedEvent(let source, let index, let reason):
      "\(source): received event \(index + 1) of its batch is malformed: \(reason). Nothing from this batch was applied; the sending peer's log may be damaged (chronicle verify)."
    case .forgedEvent(let source, let event, let reason):
      "\(source): event \(event) rejected: \(reason). Nothing from this batch was applied."
    case .schemaAhead(let source, let event, let remote, let local):
      "\(source): event \(event) was written at schema epoch \(remote), this database is at epoch \(local). Upgrade the app (run its migrations) on this peer, then sync again."
    case .schemaMismatch(let source, let event, let reason):
      "\(source): event \(event) does not fit this database's schema: \(reason). Run the same migrations on both peers, then sync again."
    case .invalidVersionVector(let text):
      "invalid version vector entry '\(text)': expected PEER-UUID:SEQUENCE[,PEER-UUID:SEQUENCE...]"
    case .transport(let message):
      "sync transport failed: \(message)"
    case .compactedAway(let origin, let needed, let baseline):
      "events \(origin.shortDescription):\(needed)... were compacted into this log's baseline (through :\(baseline)), so they cannot be sent. "
        + "Fix: get them from a peer that still has them, or start this peer again from a clone (chronicle clone)."
    case .triggerWroteWhileMerging(let source, let table):
      "\(source): a trigger wrote table '\(table)' while remote events were merged; that change would be in no event, "
        + "and peers would diverge. Nothing from this batch was applied. Fix: add `WHEN NOT chronicle_is_syncing()` to triggers "
        + "that write tracked tables (`when: { _ in Chronicle.isNotSyncing }` with createTemporaryTrigger): the merged rows already hold what they computed."
    }
  }
}
