import Foundation
import ChronicleTestSupport
import Testing

@testable import Chronicle

@Suite("Migrations: schema-epoch events with upcast steps")
struct MigrationTests {
  func makeLists(_ directory: TemporaryDirectory) throws -> ChronicleDatabase {
    let database = try Chronicle.open(path: directory.path("app.sqlite"))
    try database.write { db in
      try db.execute(sql: "CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, legacy TEXT, score INTEGER) STRICT")
      try db.execute(sql: "INSERT INTO lists VALUES (1, 'Home', 'x', 10), (2, 'Work', NULL, 20)")
    }
    return database
  }

  @Test func renameAndAddAreRecordedWithoutCarryingTheRows() throws {
    let directory = try TemporaryDirectory()
    let database = try makeLists(directory)
    let ran = try database.migrate("titles") { migration in
      try migration.renameColumn("name", to: "title", in: "lists")
      try migration.addColumn("priority", to: "lists", type: "INTEGER", default: .integer(0))
    }
    #expect(ran)
    #expect(try !database.migrate("titles") { _ in Issue.record("a migration runs once") })
    #expect(try database.appliedMigrations() == ["titles"])
    let event = try #require(try database.lastEvent())
    #expect(event.rowChangeCount == 0, "the rename is a copy, not a dump of the rows")
    #expect(event.operations.contains(.schema(.migration(SchemaMigration(name: "titles", steps: [
      .renameColumn(table: "lists", from: "name", to: "title"),
      .addColumn(table: "lists", column: "priority", default: .integer(0)),
    ])))))
    let titles = try database.read { db in try String.fetchAll(db, sql: "SELECT title FROM lists ORDER BY id") }
    #expect(titles == ["Home", "Work"])
    #expect(try database.replayMatchesLive(directory))
    // A replayed copy knows the migration ran.
    try database.replay(into: directory.path("copy.sqlite"))
    #expect(try Chronicle.open(path: directory.path("copy.sqlite")).appliedMigrations() == ["titles"])
  }

  @Test func convertDropAndRenameTable() throws {
    let directory = try TemporaryDirectory()
    let database = try makeLists(directory)
    var upcasters = Upcasters()
    upcasters.registerConversion("points as text") { value in
      if case .integer(let points) = value { return .text("\(points) points") }
      return value
    }
    try database.migrate("reshape", upcasters: upcasters) { migration in
      try migration.convertColumn("score", in: "lists", to: "TEXT", using: "points as text")
      try migration.dropColumn("legacy", from: "lists")
      try migration.renameTable("lists", to: "folders")
    }
    let scores = try database.read { db in try String.fetchAll(db, sql: "SELECT score FROM folders ORDER BY id") }
    #expect(scores == ["10 points", "20 points"])
    try database.write { db in try db.execute(sql: "INSERT INTO folders (id, name, score) VALUES (3, 'New', 'none')") }
    #expect(try database.replayMatchesLive(directory))
  }

  @Test func aCustomStepSplitsATable() throws {
    let directory = try TemporaryDirectory()
    let database = try Chronicle.open(path: directory.path("app.sqlite"))
    try database.write { db in
      try db.execute(sql: "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, street TEXT) STRICT")
      try db.execute(sql: "INSERT INTO people VALUES (1, 'Ada', 'Main St'), (2, 'Bob', NULL)")
    }
    var upcasters = Upcasters()
    upcasters.registerUpcaster("split addresses") { row in
      var person = row
      person.values.removeAll { $0.column == "street" }
      guard let street = row.values.first(where: { $0.column == "street" }), row.kind != .delete else {
        return row.kind == .update && person.values.isEmpty ? [] : [person]
      }
      let address = UpcastRow(
        table: "addresses", kind: row.kind == .insert ? .insert : .update,
        key: [NamedValue(column: "personID", value: row.key[0].value)],
        values: row.kind == .insert ? [NamedValue(column: "personID", value: row.key[0].value), street] : [street])
      return (person.values.isEmpty && row.kind == .update ? [] : [person]) + [address]
    }
    try database.migrate("addresses", upcasters: upcasters) { migration in
      try migration.custom("split addresses", tables: ["people"]) { db in
        try db.execute(sql: """
          CREATE TABLE addresses (personID INTEGER PRIMARY KEY REFERENCES people(id), street TEXT) STRICT;
          INSERT INTO addresses SELECT id, street FROM people;
          ALTER TABLE people DROP COLUMN street;
          """)
      }
    }
    #expect(try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM addresses") } == 2)
    #expect(try database.replayMatchesLive(directory))
    // A rebuild sends the older inserts through the upcaster: same split.
    try database.write { db in try db.execute(sql: "UPDATE addresses SET street = 'Elm St' WHERE personID = 2") }
    let before = try database.digests()
    #expect(throws: ChronicleError.missingUpcaster("split addresses")) { try database.rebuild() }
    let report = try database.rebuild(options: RebuildOptions(upcasters: upcasters))
    #expect(report.differences == nil, "\(String(describing: report.differences))")
    #expect(try database.digests() == before)
  }

  @Test func aMigrationWithoutItsCodeChangesNothing() throws {
    let directory = try TemporaryDirectory()
    let database = try makeLists(directory)
    let events = try database.log.count()
    #expect(throws: ChronicleError.missingUpcaster("nope")) {
      try database.migrate("convert") { migration in
        try migration.renameColumn("name", to: "title", in: "lists")
        try migration.convertColumn("score", in: "lists", to: "TEXT", using: "nope")
      }
    }
    #expect(try database.log.count() == events)
    #expect(try database.appliedMigrations().isEmpty)
    let columns = try database.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('lists')") }
    #expect(columns.contains("name"), "rolled back")
    #expect(throws: ChronicleError.self) {
      try database.migrate("bad sql") { migration in try migration.dropColumn("nope", from: "lists") }
    }
  }
}
