import Foundation
import Synchronization
import GRDB
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// A wall clock the test moves by hand, shared by peers (each with its own skew).
final class ManualWallClock: Sendable {
  private let milliseconds = Mutex<UInt64>(1_790_000_000_000)

  func advance(by delta: UInt64) { milliseconds.withLock { $0 += delta } }

  /// A reading function for one peer, `skew` milliseconds off.
  func reader(skew: Int64) -> @Sendable () -> UInt64 {
    { [self] in UInt64(Int64(milliseconds.withLock { $0 }) + skew) }
  }
}

/// Opens a peer whose schema is the sync test schema (lists and their items).
func openSyncPeer(
  _ directory: TemporaryDirectory, name: String, clock: ManualWallClock, skew: Int64 = 0, peer: PeerIdentity = .generate,
  mergeBatchRows: Int = MergeBatch.defaultCapacity, rowFoldMinimumEvents: Int = TouchedRowFold.minimumEvents,
  bundleBatchEvents: Int = ChronicleConfiguration().bundleBatchEvents
) throws -> ChronicleDatabase {
  var configuration = ChronicleConfiguration()
  configuration.wallClock = clock.reader(skew: skew)
  configuration.mergeBatchRows = mergeBatchRows
  configuration.rowFoldMinimumEvents = rowFoldMinimumEvents
  configuration.bundleBatchEvents = bundleBatchEvents
  let database = try Chronicle.open(path: directory.path(name), peer: peer, configuration: configuration)
  try database.write { db in
    try db.execute(sql: """
      CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, weight REAL) STRICT;
      CREATE TABLE items (
        id INTEGER PRIMARY KEY,
        listID INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
        title TEXT NOT NULL DEFAULT '',
        count INTEGER
      ) STRICT;
      """)
  }
  return database
}

/// Opens a sync peer that wrote `count` lists, one per event, a millisecond apart.
func openSyncPeerWithLists(_ directory: TemporaryDirectory, name: String, clock: ManualWallClock, count: Int) throws -> ChronicleDatabase {
  let peer = try openSyncPeer(directory, name: name, clock: clock)
  for id in 1...count {
    try peer.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, ?)", arguments: [id, "list \(id)"]) }
    clock.advance(by: 1)
  }
  return peer
}

/// Sends what `source` has beyond `target`'s vector to `target` (the in-memory exchange).
@discardableResult
func push(_ source: ChronicleDatabase, to target: ChronicleDatabase) throws -> MergeReport {
  let events = try source.serializedEvents(beyond: target.versionVector())
  let bundle = EventBundle.encode(writer: source.peerID, events: events)
  return try target.applyRemote(bundle: bundle, source: "memory:\(source.peerID.shortDescription)")
}

/// Expects the merge `body` runs to refuse an event of `device` whose
/// reason contains `reason`, and to record it where `chronicle refused`
/// reads (`receiver`'s refused events, when given).
func expectRefused(
  _ device: PeerID, _ reason: String, by receiver: ChronicleDatabase? = nil, sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () throws -> MergeReport
) {
  do {
    let report = try body()
    #expect(
      report.refused.contains { $0.origin == device && $0.reason.contains(reason) },
      "expected a refusal of an event of \(device.shortDescription) for '\(reason)'; refused: \(report.refused)", sourceLocation: sourceLocation)
    if let receiver {
      let recorded = try receiver.refusedEvents()
      #expect(recorded.contains { $0.origin == device && $0.reason.contains(reason) }, "recorded: \(recorded)", sourceLocation: sourceLocation)
    }
  } catch {
    Issue.record(error, "expected a refusal of an event of \(device.shortDescription), not an error", sourceLocation: sourceLocation)
  }
}

/// Expects no row of `peer`'s tables to lack its parent (SQLite's own
/// check): a merge parks such rows.
func expectNoOrphans(_ peer: ChronicleDatabase, _ context: String) throws {
  let violations = try peer.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }
  #expect(violations.isEmpty, "\(context): rows without their parent: \(violations)")
}

/// The set of event identities in a log.
func eventIDs(_ database: ChronicleDatabase) throws -> Set<EventID> {
  Set(try database.log.events().map(\.event.id))
}

/// Checks that the merge state `peer` holds is the one a rebuild derives
/// from its log in one pass, row by row, and that the rebuild finds and
/// leaves the tables as they were: what folding in slices, or merging ahead
/// of local history and folding it later, must leave. `context` (a seed, a
/// peer) starts each failure's message.
func expectMergeStateIsTheOnePassState(_ peer: ChronicleDatabase, _ context: String) throws {
  let held = try peer.read { db in try MergeStore(db: db).allStates() }
  let digests = try peer.digests()
  let report = try peer.rebuild()
  #expect(report.differences == nil, "\(context): the rebuild found the tables different: \(String(describing: report.differences))")
  #expect(try peer.digests() == digests, "\(context): rebuilding changed the tables")
  let onePass = try peer.read { db in try MergeStore(db: db).allStates() }
  #expect(onePass.count == held.count, "\(context): one pass holds merge state for \(onePass.count) rows, the peer \(held.count)")
  for (mine, derived) in zip(held, onePass) where mine != derived {
    Issue.record("\(context): merge state of \(mine.table) row \(Array(mine.key)) differs: held \(mine.state), one pass \(derived.state)")
    break
  }
}

/// A suite of three sync peers `a`, `b` and `c` (``openSyncPeer``) on one
/// manual clock: the group and refusal tests write lists through them.
protocol ThreePeers {
  var directory: TemporaryDirectory { get }
  var clock: ManualWallClock { get }
  var a: ChronicleDatabase { get }
  var b: ChronicleDatabase { get }
  var c: ChronicleDatabase { get }
}

extension ThreePeers {
  /// The names of `database`'s lists, by id.
  func names(_ database: ChronicleDatabase) throws -> [String] {
    try database.read { db in try String.fetchAll(db, sql: "SELECT name FROM lists ORDER BY id") }
  }

  /// `device`'s entry in `database`'s member list.
  func member(_ database: ChronicleDatabase, _ device: PeerID) throws -> GroupMember? {
    try database.members().first { $0.device == device }
  }

  /// A group of a (admin), b and c, each knowing the others.
  func makeGroup() throws {
    try a.createGroup()
    try b.join(try a.invite())
    try c.join(try a.invite())
    try push(b, to: a)
    try push(c, to: a)
    try push(a, to: b)
    try push(a, to: c)
  }

  /// A copy of `database` and its key file as they are now: what a device
  /// (or whoever took a backup of it) keeps after its revocation.
  func backup(of database: ChronicleDatabase, as name: String) throws -> ChronicleDatabase {
    let path = directory.path(name)
    try database.writer.backup(to: DatabaseQueue(path: path))
    try FileManager.default.copyItem(at: DeviceKey.fileURL(forDatabaseAt: database.path), to: DeviceKey.fileURL(forDatabaseAt: path))
    var configuration = ChronicleConfiguration()
    configuration.wallClock = clock.reader(skew: 0)
    return try Chronicle.open(path: path, configuration: configuration)
  }

  /// Sends `origin`'s events that `source` holds beyond `target`'s vector,
  /// up to `sequence`, and nothing else.
  @discardableResult
  func send(_ origin: PeerID, from source: ChronicleDatabase, to target: ChronicleDatabase, through sequence: UInt64 = .max) throws -> MergeReport {
    let events = try source.serializedEvents(beyond: target.versionVector()).filter { bytes in
      guard let id = EventCodec.eventID(of: bytes) else { return false }
      return id.origin == origin && id.sequence <= sequence
    }
    return try target.applyRemote(bundle: EventBundle.encode(writer: source.peerID, events: events), source: "memory:\(source.peerID.shortDescription)")
  }

  /// Inserts a list through `database`, a millisecond after the last write.
  func insert(_ database: ChronicleDatabase, _ id: Int, _ name: String) throws {
    clock.advance(by: 1)
    try database.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (?, ?)", arguments: [id, name]) }
  }
}
