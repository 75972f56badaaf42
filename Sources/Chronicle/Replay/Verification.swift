import Foundation
import GRDB

/// What ``ChronicleLogSource/verify(progress:)`` found.
public struct VerificationReport: Sendable {
  /// One finding.
  public struct Finding: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
      /// The payload does not decode (bad checksum, truncated, unknown format).
      case corruptEvent
      /// The log row's columns disagree with the payload they index.
      case indexMismatch
      /// Sequence numbers of one origin skip some.
      case sequenceGap
      /// The replay stopped at an event it could not apply.
      case replayFailed
      /// A table's replay differs from the live table.
      case tableDiffers
      /// A signed event whose signature does not verify, or is not its origin's.
      case badSignature
      /// An unsigned event of a device that signs its events.
      case unsignedEvent
      /// An event of a device that is not a member of the group (or was
      /// revoked before it).
      case notAMember
    }

    public var kind: Kind
    /// The log position concerned, if one.
    public var position: Int64?
    /// The event concerned (`origin:sequence`), if one.
    public var event: String?
    public var message: String
  }

  /// A tracked table's live digest beside the replayed one.
  public struct TableCheck: Sendable, Hashable {
    public var table: String
    public var live: TableDigest
    /// Nil when the replay did not run.
    public var replayed: TableDigest?
    public var matches: Bool { replayed.map { $0.hash == live.hash && $0.rowCount == live.rowCount } ?? false }
  }

  /// Events read.
  public var eventCount: Int
  /// Problems: the log or the tables cannot be trusted.
  public var problems: [Finding]
  /// Facts worth knowing that are not errors (events of other peers not
  /// received yet leave gaps that sync fills).
  public var warnings: [Finding]
  /// Per tracked table, live against replayed.
  public var tables: [TableCheck]
  /// Row-level differences of the tables that differ (live first, replay second).
  public var differences: DatabaseDiff?

  /// Whether nothing is wrong.
  public var isValid: Bool { problems.isEmpty }
}

extension ChronicleLogSource {
  /// Checks the log and the tables against each other:
  /// - every event decodes (its CRC-32 checks) and its log row agrees with it;
  /// - every event of another device is signed by that device (an unsigned
  ///   one is a warning when it predates the device's key) and, in a group,
  ///   the device was a member when it wrote it;
  /// - each origin's sequence numbers run without gaps (a gap in this peer's
  ///   own events is a problem; in another peer's, a warning: sync fills it);
  /// - a replay of the whole log gives each tracked table's live digest, and
  ///   where it does not, which rows differ.
  ///
  /// The replay goes to a temporary file, removed afterwards. Every check
  /// reads one snapshot of the database, so `verify` is a health check a
  /// process can run while another one writes.
  public func verify(progress: (@Sendable (ReplayProgress) -> Void)? = nil) throws -> VerificationReport {
    try read { db in try PinnedLogSource(base: self, db: db).verifyOneSnapshot(progress: progress) }
  }

  /// ``verify(progress:)``, for a source whose reads all see one snapshot.
  fileprivate func verifyOneSnapshot(progress: (@Sendable (ReplayProgress) -> Void)?) throws -> VerificationReport {
    var problems: [VerificationReport.Finding] = []
    var warnings: [VerificationReport.Finding] = []
    let peer = peerID
    var eventCount = 0
    try read { db in
      // An archive from before device keys has neither table.
      let knowsDevices = try db.tableExists("chronicle_devices")
      let devices = DeviceRegistry(db: db)
      let membership = GroupMembership(db: db)
      let rows = try Row.fetchCursor(db, sql: """
        SELECT id, origin, sequence, hlc, schema_epoch, payload, stored_size, checksum, row_changes
        FROM chronicle_events ORDER BY id
        """)
      while let row = try rows.next() {
        eventCount += 1
        let position: Int64 = row["id"]
        let origin = PeerID(bytes: row["origin"] as Data)
        let sequence: Int64 = row["sequence"]
        let name = "\(origin?.shortDescription ?? "?"):\(sequence)"
        let payload = [UInt8](row["payload"] as Data)
        let event: ChangeEvent
        do {
          event = try EventCodec.decode(payload)
        } catch {
          problems.append(.init(kind: .corruptEvent, position: position, event: name, message: "event #\(position) (\(name)) is corrupt: \(error)"))
          continue
        }
        var mismatches: [String] = []
        if event.origin != origin { mismatches.append("origin") }
        if Int64(event.sequence) != sequence { mismatches.append("sequence") }
        if Int64(bitPattern: event.timestamp.rawValue) != row["hlc"] as Int64 { mismatches.append("hlc") }
        if Int64(event.schemaEpoch) != row["schema_epoch"] as Int64 { mismatches.append("schema_epoch") }
        if payload.count != row["stored_size"] as Int { mismatches.append("stored_size") }
        let checksum = payload.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if Int64(checksum) != row["checksum"] as Int64 { mismatches.append("checksum") }
        if event.rowChangeCount != row["row_changes"] as Int { mismatches.append("row_changes") }
        if !mismatches.isEmpty {
          problems.append(.init(
            kind: .indexMismatch, position: position, event: name,
            message: "event #\(position) (\(name)): the log row's \(mismatches.joined(separator: ", ")) disagree with its payload"))
        }
        if payload[4] >= 2 {
          let signer = try? EventSignature.verifiedSigner(of: payload)
          let known = knowsDevices ? try devices.device(event.origin)?.publicKey : nil
          let isOrigins = signer.map { event.origin.isKeyDerived ? PeerID(publicKey: $0) == event.origin : (known == nil || known == $0) } ?? false
          if !isOrigins {
            problems.append(.init(
              kind: .badSignature, position: position, event: name,
              message: "event #\(position) (\(name)): \(signer == nil ? EventSignature.Problem.badSignature : .notTheOriginsKey)"))
          }
        } else if event.origin != peer {
          let firstSigned = knowsDevices ? try devices.device(event.origin)?.firstSignedSequence : nil
          if event.origin.isKeyDerived || firstSigned.map({ event.sequence >= $0 }) == true {
            problems.append(.init(
              kind: .unsignedEvent, position: position, event: name,
              message: "event #\(position) (\(name)) is not signed, and device \(event.origin.shortDescription) signs its events"))
          } else {
            warnings.append(.init(
              kind: .unsignedEvent, position: position, event: name,
              message: "event #\(position) (\(name)) is not signed: device \(event.origin.shortDescription) wrote it before it had a key"))
          }
        }
        let isJoinRequest = event.operations.allSatisfy { if case .membership(.join) = $0 { true } else { false } }
        let writes = event.operations.contains { $0.tableIndex != nil }
        if knowsDevices, event.origin != peer, !isJoinRequest,
           let refusal = try membership.refusal(ofEventFrom: event.origin, sequence: event.sequence, writes: writes) {
          problems.append(.init(kind: .notAMember, position: position, event: name, message: "event #\(position) (\(name)): \(refusal)"))
        }
      }
      // Each origin's sequences run on from the baseline (or from 1) without a gap.
      let base = try LogBaseline.Header.read(db)?.vector ?? VersionVector()
      var gaps: [(origin: PeerID?, sequence: Int64, previous: Int64)] = []
      try EventLog.forEachSequence(db) { originBytes, sequence, previousStored in
        let origin = PeerID(bytes: originBytes)
        let previous = previousStored ?? Int64(origin.map { base[$0] } ?? 0)
        if sequence != previous + 1 { gaps.append((origin, sequence, previous)) }
      }
      for (origin, sequence, previous) in gaps {
        let missing = previous + 1 == sequence - 1 ? "\(previous + 1)" : "\(previous + 1) to \(sequence - 1)"
        let who = origin?.shortDescription ?? "?"
        if origin == peer {
          problems.append(.init(
            kind: .sequenceGap, position: nil, event: "\(who):\(sequence)",
            message: "this peer's own events \(who):\(missing) are missing from its log: the log was truncated or edited"))
        } else {
          warnings.append(.init(
            kind: .sequenceGap, position: nil, event: "\(who):\(sequence)",
            message: "events \(who):\(missing) of peer \(who) have not arrived (later ones have): the next sync fetches them"))
        }
      }
    }

    let tracked = try loggedTables()
    let live = try digests(tables: tracked)
    var tables = live.map { VerificationReport.TableCheck(table: $0.table, live: $0, replayed: nil) }
    var differences: DatabaseDiff?
    if problems.contains(where: { $0.kind == .corruptEvent }) {
      warnings.append(.init(kind: .replayFailed, position: nil, event: nil, message: "the replay check did not run: the log has corrupt events"))
    } else {
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-verify-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      let replayPath = directory.appendingPathComponent("replay.sqlite").path
      do {
        let report = try replay(into: replayPath, options: ReplayOptions(keepsLog: false, progress: progress))
        let replayed = Dictionary(report.digests.map { ($0.table.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        for index in tables.indices { tables[index].replayed = replayed[tables[index].table.lowercased()] }
        let differing = tables.filter { !$0.matches }.map(\.table)
        for table in differing {
          problems.append(.init(kind: .tableDiffers, position: nil, event: nil, message: "table \(table): the replay of the log differs from the live table"))
        }
        if !differing.isEmpty {
          differences = try DatabaseDiff.compare(path, replayPath, tables: differing.filter { replayed[$0.lowercased()] != nil }, rowLimit: 20)
        }
      } catch let ChronicleError.replayFailed(event, reason) {
        problems.append(.init(kind: .replayFailed, position: nil, event: event, message: "the replay stopped at event \(event): \(reason)"))
      }
    }
    return VerificationReport(eventCount: eventCount, problems: problems, warnings: warnings, tables: tables, differences: differences)
  }
}

/// A log source whose every read runs on one connection inside one read
/// transaction: one snapshot of the database, whatever writes meanwhile.
/// It lives only as long as that transaction (inside a `read` closure).
private struct PinnedLogSource<Base: ChronicleLogSource>: ChronicleLogSource, @unchecked Sendable {
  // Unchecked: `db` is used only on the thread that runs the enclosing read.
  let base: Base
  let db: Database

  var path: String { base.path }
  var peerID: PeerID { base.peerID }
  var log: EventLog { base.log }

  func read<T>(_ value: (Database) throws -> T) throws -> T { try value(db) }
}
