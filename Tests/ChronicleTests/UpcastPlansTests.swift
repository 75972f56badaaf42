import ChronicleTestSupport
import Foundation
import Testing

@testable import Chronicle

/// A rebuild reshapes rows by plan when the migrations after them only
/// rename, add and drop: the plan must give exactly what the upcaster gives
/// row by row (then fitting, and the tables a rebuild empties), for every
/// kind of row and set of columns.
@Suite("Rebuild: upcasting by plan")
struct UpcastPlansTests {
  static let local = PeerID.generate(), other = PeerID.generate()
  static let items = TableDescriptor(name: "items", columns: ["id", "title", "count", "score"], primaryKey: [0])
  static let tags = TableDescriptor(name: "Tags", columns: ["name", "listID", "color"], primaryKey: [1, 0])

  @Test(arguments: [UInt64(0x5EED_0401), 0x5EED_0402, 0x5EED_0403])
  func plansGiveWhatTheUpcasterGivesRowByRow(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed)
    let upcaster = EventUpcaster(
      migrations: [
        (5, SchemaMigration(name: "one", steps: [
          .renameColumn(table: "ITEMS", from: "Title", to: "name"), .addColumn(table: "items", column: "flag", default: .integer(1)),
        ])),
        (8, SchemaMigration(name: "two", steps: [
          .renameTable(from: "items", to: "things"), .dropColumn(table: "things", column: "count"),
          .addColumn(table: "tags", column: "note", default: .text("")),
        ])),
      ],
      upcasters: Upcasters(), localPeer: Self.local)
    // Fitting to the shadow tables drops a column they no longer have, and
    // an update left with nothing to change.
    func fit(_ row: UpcastRow) -> UpcastRow? {
      var row = row
      row.values.removeAll { $0.column == "score" }
      return row.kind == .update && row.values.isEmpty ? nil : row
    }
    // Tags were emptied at position 4: rows written before are skipped.
    var plans = UpcastPlans()
    var planned = 0
    for position in Int64(1)...12 {
      let stored = StoredEvent(id: position, event: randomEvent(&random, position), rawSize: 0, storedSize: 0, checksum: 0)
      func keeps(_ table: String) -> Bool { table != "tags" || position >= 4 }
      let rows = try upcaster.rows(of: stored).compactMap { keeps($0.table.lowercased()) ? fit($0) : nil }
      let expected = EventUpcaster.event(rows, like: stored.event)
      let reshaped = try #require(try plans.reshape(stored, upcaster: upcaster, fit: fit, keeps: keeps), "seed \(seed): event \(position) has no plan")
      #expect(reshaped.event == expected, "seed \(seed): event \(position) reshaped by plan differs from the upcaster's")
      #expect(reshaped.rows == rows.count, "seed \(seed): event \(position)")
      planned += reshaped.rows
    }
    #expect(planned > 50, "seed \(seed): too few rows to tell")
  }

  /// A conversion looks at values: an event it applies to has no plan.
  @Test func aStepThatLooksAtValuesHasNoPlan() throws {
    let upcaster = EventUpcaster(
      migrations: [(5, SchemaMigration(name: "convert", steps: [.convertColumn(table: "items", column: "count", converter: "double")]))],
      upcasters: Upcasters(), localPeer: Self.local)
    var plans = UpcastPlans()
    var random = SeededGenerator(seed: 1)
    let before = StoredEvent(id: 3, event: randomEvent(&random, 3), rawSize: 0, storedSize: 0, checksum: 0)
    let after = StoredEvent(id: 6, event: randomEvent(&random, 6), rawSize: 0, storedSize: 0, checksum: 0)
    #expect(try plans.reshape(before, upcaster: upcaster, fit: { $0 }, keeps: { _ in true }) == nil)
    #expect(try plans.reshape(after, upcaster: upcaster, fit: { $0 }, keeps: { _ in true }) != nil)
  }

  /// Inserts, updates of random column sets (the key never), and deletes,
  /// of both tables, by this peer or another (whose events every migration reshapes).
  func randomEvent(_ random: inout SeededGenerator, _ position: Int64) -> ChangeEvent {
    var operations: [EventOperation] = []
    func value(_ random: inout SeededGenerator) -> SQLiteValue {
      switch Int.random(in: 0..<4, using: &random) {
      case 0: .null
      case 1: .integer(Int64.random(in: -5...5, using: &random))
      case 2: .text(["a", "b", "c"].randomElement(using: &random)!)
      default: .real(Double(Int.random(in: 0...9, using: &random)) / 4)
      }
    }
    for _ in 0..<Int.random(in: 4...12, using: &random) {
      let table = Int.random(in: 0...1, using: &random)
      let descriptor = table == 0 ? Self.items : Self.tags
      let values = descriptor.columns.map { _ in value(&random) }
      let key = descriptor.primaryKey.map { values[$0] }
      switch Int.random(in: 0..<3, using: &random) {
      case 0:
        operations.append(.insert(table: table, values: values))
      case 1:
        let columns = descriptor.columns.indices.filter { !descriptor.primaryKey.contains($0) && Bool.random(using: &random) }
        guard !columns.isEmpty else { continue }
        operations.append(.update(table: table, key: key, changes: columns.map { ColumnValue(column: $0, value: values[$0]) }))
      default:
        operations.append(.delete(table: table, key: key))
      }
    }
    return ChangeEvent(
      origin: Bool.random(using: &random) ? Self.local : Self.other, sequence: UInt64(position),
      timestamp: HLCTimestamp(milliseconds: 1_000_000 + UInt64(position), counter: 0), schemaEpoch: 0,
      tables: [Self.items, Self.tags], operations: operations)
  }
}
