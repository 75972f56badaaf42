import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// A merge batch holds rows in a form of its own (``HeldRows``) and reads
/// and writes `chronicle_rows` from it: what it saves must be, byte for
/// byte, what ``RowMergeState`` saves for the same state (merge state is
/// compared as stored between files, and read back by every other tool).
@Suite("Merge: a batch's rows keep their merge state")
struct HeldRowsTests {
  @Test(arguments: [20261126, 7, 424242])
  func aStateLoadedAndSavedByABatchIsStoredAsRowMergeStateStoresIt(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let directory = try TemporaryDirectory()
    let queue = try DatabaseQueue(path: directory.path("states.sqlite"))
    // Twenty versions, some at one clock reading from two peers (the peer decides).
    let peers = [PeerID.generate(), PeerID.generate()]
    let versions = (0..<20).map { WriteVersion(timestamp: HLCTimestamp(rawValue: UInt64(1_000 + $0 / 2 * 65_536)), origin: peers[$0 % 2]) }
    // Columns the table has, and two it no longer has (dropped since).
    let names = ["id", "a", "b", "c", "dropped", "renamed"]
    try queue.write { db in
      try InternalSchema.migrate(db)
      try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b INTEGER, c REAL) STRICT")
      let store = MergeStore(db: db)
      for id in Int64(1)...300 {
        var state = RowMergeState()
        for name in names where Bool.random(using: &random) { state.clocks[name] = versions.randomElement(using: &random)! }
        if Int.random(in: 0..<4, using: &random) == 0 { state.deleted = versions.randomElement(using: &random)! }
        state.isComplete = Bool.random(using: &random)
        // As the batch finds states: a row in its table is complete and
        // live; a row out of it keeps its values, parked when live.
        if state.belongsInTable, Bool.random(using: &random) {
          state.retained = nil
        } else {
          state.isComplete = state.isComplete && !state.isLive
          var retained: [String: SQLiteValue] = [:]
          for name in names where Bool.random(using: &random) { retained[name] = .text("\(name)\(id)") }
          state.retained = retained
          state.parkedReason = state.isLive ? .incomplete : nil
        }
        try store.save(table: "t", key: MergeStateKey.encode(id), state)
      }
      let saved = try storedStates(db)
      let batch = MergeBatch(db)
      let table = batch.tablePosition(try #require(try TableShape.read(db, table: "t")))
      for id in Int64(1)...300 { _ = try batch.row(ofTable: table, key: MergeStateKey.encode(id)) { _ in .integer(id) } }
      try batch.flush()
      let resaved = try storedStates(db)
      #expect(resaved.count == 300)
      for (before, after) in zip(saved, resaved) where before != after {
        Issue.record("seed \(seed): row \(before[0]) stored as \(after) instead of \(before)")
        break
      }
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == 0, "seed \(seed): no row entered its table")
    }
  }

  private func storedStates(_ db: Database) throws -> [[DatabaseValue]] {
    try Row.fetchAll(db, sql: """
      SELECT 0, row_key, clocks, parked_reason, retained FROM chronicle_rows
      UNION ALL SELECT 1, table_and_key, clocks, parked_reason, retained FROM chronicle_integer_rows ORDER BY 1, 2
      """).map { Array($0.databaseValues) }
  }
}
