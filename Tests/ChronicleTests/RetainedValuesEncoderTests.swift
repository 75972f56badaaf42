import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// Capture and replay keep each deleted row's last values in the merge state,
/// encoded from the table's column order by a ``RetainedValuesEncoder``; the
/// merge reads them back as ``RowMergeState`` decodes them.
@Suite("Retained values: a deleted row's last values, as the merge state holds them")
struct RetainedValuesEncoderTests {
  @Test(arguments: [20261127, 5, 77])
  func encodesWhatRowMergeStateEncodesForAnyColumnOrder(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let names = ["id", "title", "Title2", "a", "zeta", "_x", "count", "é", "listID", "B"]
    for _ in 0..<200 {
      let columns = Array(names.shuffled(using: &random).prefix(Int.random(in: 1...names.count, using: &random)))
      let values: [SQLiteValue] = columns.map { _ in
        switch Int.random(in: 0..<5, using: &random) {
        case 0: .null
        case 1: .integer(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 2: .real(Double(Int.random(in: -1000...1000, using: &random)) / 8)
        case 3: .text(String(repeating: "x", count: Int.random(in: 0..<40, using: &random)))
        default: .blob(Data((0..<Int.random(in: 0..<9, using: &random)).map { UInt8($0) }))
        }
      }
      let encoded = try RetainedValuesEncoder(columns: columns).encode { values[$0] }
      let expected = try RowMergeState.encodeValues(Dictionary(uniqueKeysWithValues: zip(columns, values)))
      #expect(Data(encoded) == expected, "seed \(seed): columns \(columns)")
      #expect(try RowMergeState.decodeValues(encoded) == Dictionary(uniqueKeysWithValues: zip(columns, values)), "seed \(seed)")
    }
  }

  @Test func aRetainedRowReadsBackWholeUnderEitherKeyLayout() throws {
    let directory = try TemporaryDirectory()
    let queue = try DatabaseQueue(path: directory.path("states.sqlite"))
    try queue.write { db in
      try InternalSchema.migrate(db)
      let store = MergeStore(db: db)
      let encoder = RetainedValuesEncoder(columns: ["id", "title", "count"])
      // A small integer key lives in chronicle_integer_rows, a text key in chronicle_rows.
      for key in [[SQLiteValue.integer(42)], [.text("k-1")]] {
        let values: [SQLiteValue] = [key[0], .text("last title"), .integer(3)]
        try store.retainDeletedRow(table: "items", key: MergeStore.encodeKey(key), retained: try encoder.encode { values[$0] })
        let state = try #require(try store.load(table: "items", key: MergeStore.encodeKey(key)))
        #expect(state.retained == ["id": key[0], "title": .text("last title"), "count": .integer(3)])
        #expect(state.isComplete)
      }
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM chronicle_integer_rows") == 1)
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM chronicle_rows") == 1)
    }
  }
}
