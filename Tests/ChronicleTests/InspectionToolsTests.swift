import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

/// Diff, step, blame and verify.
@Suite("Replay tools: diff, step, blame, verify")
struct InspectionToolsTests {
  @Test func diffFindsAddedRemovedAndChangedRowsDownToColumns() throws {
    let directory = try TemporaryDirectory()
    let schema = """
      CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score ANY) STRICT;
      CREATE TABLE same (id INTEGER PRIMARY KEY) STRICT;
      """
    for name in ["a", "b"] {
      try DatabaseQueue(path: directory.path("\(name).sqlite")).write { db in try db.execute(sql: schema) }
    }
    try DatabaseQueue(path: directory.path("a.sqlite")).write { db in
      try db.execute(sql: "INSERT INTO t VALUES (1, 'one', 1), (2, 'two', 2), (3, 'three', 3); INSERT INTO same VALUES (1)")
      try db.execute(sql: "CREATE TABLE onlyA (id INTEGER PRIMARY KEY) STRICT")
    }
    try DatabaseQueue(path: directory.path("b.sqlite")).write { db in
      // 1 unchanged, 2 renamed, 3 gone, 4 new, and 1.0 is not 1 (storage class).
      try db.execute(sql: "INSERT INTO t VALUES (1, 'one', 1), (2, 'TWO', 2.0), (4, 'four', 4); INSERT INTO same VALUES (1)")
    }
    let diff = try DatabaseDiff.compare(directory.path("a.sqlite"), directory.path("b.sqlite"))
    #expect(diff.hasDifferences)
    #expect(diff.tables.map(\.table) == ["onlyA", "same", "t"])
    #expect(diff.tables[0].presence == .onlyInFirst)
    #expect(!diff.tables[1].hasDifferences)
    let t = diff.tables[2]
    #expect(t.keyColumns == ["id"])
    #expect((t.addedCount, t.removedCount, t.changedCount) == (1, 1, 1))
    #expect(t.added == [[NamedValue(column: "id", value: .integer(4)), NamedValue(column: "name", value: .text("four")), NamedValue(column: "score", value: .integer(4))]])
    #expect(t.removed.first?.first == NamedValue(column: "id", value: .integer(3)))
    #expect(t.changed == [TableDiff.ChangedRow(
      key: [NamedValue(column: "id", value: .integer(2))],
      changes: [ColumnChange(column: "name", before: .text("two"), after: .text("TWO")),
                ColumnChange(column: "score", before: .integer(2), after: .real(2))])])
    let itself = try DatabaseDiff.compare(directory.path("a.sqlite"), directory.path("a.sqlite"))
    #expect(!itself.hasDifferences)
    #expect(throws: ChronicleError.noSuchTable("nope")) {
      try DatabaseDiff.compare(directory.path("a.sqlite"), directory.path("b.sqlite"), tables: ["nope"])
    }
  }

  @Test func diffOfOneDatabaseAtTwoPoints() throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    let (_, first) = try database.writeReturningEvent { db in
      try db.execute(sql: "INSERT INTO remindersLists (id, title) VALUES ('l1', 'Home'), ('l2', 'Work')")
    }
    let (_, second) = try database.writeReturningEvent { db in
      try db.execute(sql: "UPDATE remindersLists SET title = 'Office' WHERE id = 'l2'")
      try db.execute(sql: "DELETE FROM remindersLists WHERE id = 'l1'")
    }
    for (name, event) in [("e1", first), ("e2", second)] {
      try database.replay(into: directory.path("\(name).sqlite"), options: ReplayOptions(until: .position(try #require(event).id), keepsLog: false))
    }
    let diff = try DatabaseDiff.compare(directory.path("e1.sqlite"), directory.path("e2.sqlite"))
    let lists = try #require(diff.tables.first { $0.table == "remindersLists" })
    #expect((lists.addedCount, lists.removedCount, lists.changedCount) == (0, 1, 1))
    #expect(lists.changed.first?.changes == [ColumnChange(column: "title", before: .text("Work"), after: .text("Office"))])
  }

  @Test func stepShowsEachRowBeforeAndAfter() throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try database.write { db in try db.execute(sql: "INSERT INTO remindersLists (id, title) VALUES ('l1', 'Home')") }
    let (_, event) = try database.writeReturningEvent { db in
      try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (7, 'Milk', 'l1')")
      try db.execute(sql: "UPDATE remindersLists SET title = 'House' WHERE id = 'l1'")
    }
    try database.write { db in try db.execute(sql: "DELETE FROM remindersLists WHERE id = 'l1'") }  // cascades to reminder 7

    let stepper = try EventStepper(source: database, from: try #require(event).id)
    let step = try #require(try stepper.next())
    #expect(step.stored.id == event?.id)
    #expect(step.rows.map(\.operations) == [[.insert], [.update]])
    let insert = step.rows[0]
    #expect(insert.table == "reminders" && insert.before == nil && insert.key == [NamedValue(column: "id", value: .integer(7))])
    #expect(insert.after?.first { $0.column == "title" }?.value == .text("Milk"))
    #expect(step.rows[1].changes == [ColumnChange(column: "title", before: .text("Home"), after: .text("House"))])

    let deletion = try #require(try stepper.next())
    #expect(Set(deletion.rows.map(\.table)) == ["reminders", "remindersLists"])
    #expect(deletion.rows.allSatisfy { $0.after == nil && $0.before != nil && $0.operations == [.delete] })
    #expect(try stepper.next() == nil)
  }

  @Test func stepShowsAReceivedWriteThatLostAsNoChange() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock)
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name) VALUES (1, 'first')") }
    try push(a, to: b)
    clock.advance(by: 5)
    try b.write { db in try db.execute(sql: "UPDATE lists SET name = 'older' WHERE id = 1") }
    clock.advance(by: 5)
    try a.write { db in try db.execute(sql: "UPDATE lists SET name = 'newer' WHERE id = 1") }
    let start = try a.log.count() + 1
    try push(b, to: a)
    let stepper = try EventStepper(source: a, from: Int64(start))
    var received: [EventStep] = []
    while let step = try stepper.next() { received.append(step) }
    #expect(received.map(\.isReceived) == [true, true], "b's schema event, then its update")
    let step = try #require(received.last)
    #expect(step.rows.count == 1 && step.rows[0].changes.isEmpty, "the older write lost: nothing changed")
  }

  @Test func blameNamesTheEventThatSetEachColumnAndTheHistory() throws {
    let directory = try TemporaryDirectory()
    let clock = ManualWallClock()
    let a = try openSyncPeer(directory, name: "a.sqlite", clock: clock)
    let b = try openSyncPeer(directory, name: "b.sqlite", clock: clock)
    try a.write { db in try db.execute(sql: "INSERT INTO lists (id, name, weight) VALUES (1, 'first', 1.5)") }
    try push(a, to: b)
    clock.advance(by: 5)
    let (_, fromB) = try b.writeReturningEvent { db in try db.execute(sql: "UPDATE lists SET weight = 9 WHERE id = 1") }
    clock.advance(by: 5)
    let (_, fromA) = try a.writeReturningEvent { db in try db.execute(sql: "UPDATE lists SET name = 'second' WHERE id = 1") }
    try push(b, to: a)

    let blame = try a.blame(table: "lists", key: ["1"])
    #expect(blame.history.map(\.kind) == [.insert, .update, .update])
    let byColumn = Dictionary(uniqueKeysWithValues: blame.columns.map { ($0.column, $0) })
    #expect(byColumn["name"]?.value == .text("second"))
    #expect(byColumn["name"]?.setBy?.event == fromA?.event.id)
    #expect(byColumn["weight"]?.setBy?.event == fromB?.event.id)
    #expect(byColumn["weight"]?.setBy?.isReceived == true)
    let allMatch = blame.columns.allSatisfy { $0.matchesLog }
    #expect(allMatch)
    #expect(try a.blame(table: "lists", key: ["id=1"], column: "weight").columns.map(\.column) == ["weight"])

    // A column renamed by a migration keeps its blame.
    try a.migrate("titles") { migration in try migration.renameColumn("name", to: "title", in: "lists") }
    let renamed = try a.blame(table: "lists", key: ["1"], column: "title")
    #expect(renamed.columns.first?.setBy?.event == fromA?.event.id)
    #expect(renamed.columns.first?.value == .text("second"))

    #expect(throws: ChronicleError.self) { try a.blame(table: "lists", key: ["one"]) }
    #expect(throws: ChronicleError.self) { try a.blame(table: "lists", key: ["1", "2"]) }
    #expect(throws: ChronicleError.noSuchTable("nope")) { try a.blame(table: "nope", key: ["1"]) }
  }

  @Test func verifyReadsOneSnapshotWhileAnotherConnectionWrites() async throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try await database.write { db in try db.execute(sql: "INSERT INTO remindersLists (id, title) VALUES ('l', 'List')") }
    let archive = try ChronicleArchive(path: database.path)
    // 300 writes on a dispatch thread while verify runs again and again.
    let writes = 300
    let writer = Task.detached {
      try await offThePool {
        for id in 1...writes {
          try database.write { db in
            try db.execute(sql: "INSERT INTO reminders (id, title, listID) VALUES (?, 'r', 'l')", arguments: [id])
            try db.execute(sql: "UPDATE reminders SET isCompleted = 1 - isCompleted WHERE id = ?", arguments: [id / 2])
          }
        }
      }
    }
    let (findings, runs) = try await offThePool {
      var findings: [String] = []
      var runs = 0
      while try runs < 4 || (database.eventCount() < writes && runs < 200) {
        for source in [database as any ChronicleLogSource, archive] {
          findings += try source.verify().problems.map(\.message)
          runs += 1
        }
      }
      return (findings, runs)
    }
    try await writer.value
    #expect(findings.isEmpty, "\(findings.count) findings in \(runs) runs: \(findings.prefix(3))")
    #expect(try database.eventCount() > writes)
  }

  @Test func verifyPassesOnAHealthyDatabase() throws {
    let directory = try TemporaryDirectory()
    let database = try makeDatabase(directory)
    try database.write { db in
      try db.execute(sql: "INSERT INTO remindersLists (id, title) VALUES ('l1', 'Home')")
      try db.execute(sql: "INSERT INTO reminders (title, listID) VALUES ('Milk', 'l1')")
    }
    let report = try database.verify()
    #expect(report.isValid, "\(report.problems)")
    #expect(report.tables.map(\.table) == ["reminders", "remindersLists"])
    let tablesMatch = report.tables.allSatisfy { $0.matches }
    #expect(tablesMatch)
  }

  @Test func verifyFindsACorruptEventByItsID() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("app.sqlite")
    do {
      let database = try makeDatabase(directory)
      try database.write { db in try db.execute(sql: "INSERT INTO remindersLists (id) VALUES ('l1')") }
      try database.write { db in try db.execute(sql: "INSERT INTO remindersLists (id) VALUES ('l2')") }
    }
    // Flip one byte in the compressed body of event 2.
    try plainConnection(path).write { db in
      var payload = [UInt8](try Data.fetchOne(db, sql: "SELECT payload FROM chronicle_events WHERE id = 2")!)
      payload[payload.count - 6] ^= 0x40
      try db.execute(sql: "UPDATE chronicle_events SET payload = ? WHERE id = 2", arguments: [Data(payload)])
    }
    let report = try ChronicleArchive(path: path).verify()
    #expect(!report.isValid)
    #expect(report.problems.map(\.kind) == [.corruptEvent])
    #expect(report.problems.first?.position == 2)
    #expect(report.problems.first?.message.contains("#2") == true)
  }

  @Test func verifyFindsTablesChangedBehindTheLogAndGaps() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("app.sqlite")
    do {
      let database = try makeDatabase(directory)
      try database.write { db in try db.execute(sql: "INSERT INTO remindersLists (id, title) VALUES ('l1', 'Home'), ('l2', 'Work')") }
    }
    // A plain connection has no capture: the log does not see this.
    try plainConnection(path).write { db in try db.execute(sql: "UPDATE remindersLists SET title = 'Hacked' WHERE id = 'l2'") }
    let report = try ChronicleArchive(path: path).verify()
    #expect(report.problems.map(\.kind) == [.tableDiffers])
    let lists = try #require(report.differences?.tables.first)
    #expect(lists.table == "remindersLists")
    #expect(lists.changed.first?.changes == [ColumnChange(column: "title", before: .text("Hacked"), after: .text("Work"))])

    try plainConnection(path).write { db in try db.execute(sql: "DELETE FROM chronicle_events WHERE id = 1") }
    let gapped = try ChronicleArchive(path: path).verify()
    #expect(gapped.problems.contains { $0.kind == .sequenceGap && $0.message.contains(":1 are missing") })
    #expect(gapped.problems.contains { $0.kind == .replayFailed })
  }
}
