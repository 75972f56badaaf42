import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

@Table("launches") private struct Launch {
  let id: Int
  @Column(as: Date.UnixTimeRepresentation.self)
  var startsAt: Date
}

@Table("entries") private struct Entry {
  let id: Int
  var createdAt: Date
}

@Table("sightings") private struct Sighting {
  let id: Int
  @Column(as: Date.JulianDayRepresentation.self)
  var seenAt: Date
}

extension DateTimeModifier {
  fileprivate static let lastDayOfMonth = Self.startOfMonth.months(1).days(-1)
}

/// SQLite's date and time functions on dates stored three ways (Unix time,
/// text, Julian day): components, formatting, dates moved by modifiers and
/// `.now`, as upstream spells them. Each with its SQL and the rows SQLite
/// returned (worked out by hand beside them).
@Suite("Query builder: date functions")
struct DateFunctionTests {
  let database: ChronicleDatabase
  let fixture: RemindersDatabase

  init() throws {
    fixture = try RemindersDatabase()
    database = fixture.database
    try database.write { db in
      try db.execute(sql: """
        CREATE TABLE "launches" ("id" INTEGER PRIMARY KEY, "startsAt" INTEGER NOT NULL) STRICT;
        CREATE TABLE "entries" ("id" INTEGER PRIMARY KEY, "createdAt" TEXT NOT NULL) STRICT;
        CREATE TABLE "sightings" ("id" INTEGER PRIMARY KEY, "seenAt" REAL NOT NULL) STRICT;
        """)
      // 2026-08-13 00:00 UTC; 2026-08-14 06:59:37.123 UTC; Julian day 2461266.5 = 2026-08-14 00:00 UTC.
      try Launch.insert { Launch(id: 1, startsAt: Date(timeIntervalSince1970: 1_786_579_200)) }.execute(db)
      try Entry.insert { Entry(id: 1, createdAt: Date(timeIntervalSince1970: 1_786_690_777.123)) }.execute(db)
      try Sighting.insert { Sighting(id: 1, seenAt: Date(timeIntervalSince1970: 1_786_665_600)) }.execute(db)
    }
  }

  func run(_ query: some QueryStatement) throws -> String { try database.sqlAndRows(query) }

  @Test func componentsOfEachStorage() throws {
    assertInlineSnapshot(
      of: try run(Launch.select { ($0.startsAt.year, $0.startsAt.month, $0.startsAt.day, $0.startsAt.dayOfYear) }), as: .lines
    ) {
      """
      SELECT CAST(strftime('%Y', "launches"."startsAt", 'unixepoch') AS INTEGER), CAST(strftime('%m', "launches"."startsAt", 'unixepoch') AS INTEGER), CAST(strftime('%d', "launches"."startsAt", 'unixepoch') AS INTEGER), CAST(strftime('%j', "launches"."startsAt", 'unixepoch') AS INTEGER)
      FROM "launches"
      (2026, 8, 13, 225)
      """
    }
    assertInlineSnapshot(
      of: try run(Entry.select { ($0.createdAt.hour, $0.createdAt.minute, $0.createdAt.second, $0.createdAt.fractionalSecond) }),
      as: .lines
    ) {
      """
      SELECT CAST(strftime('%H', "entries"."createdAt") AS INTEGER), CAST(strftime('%M', "entries"."createdAt") AS INTEGER), CAST(strftime('%S', "entries"."createdAt") AS INTEGER), CAST(strftime('%f', "entries"."createdAt") AS REAL)
      FROM "entries"
      (6, 59, 37, 37.123)
      """
    }
    assertInlineSnapshot(of: try run(Sighting.select { ($0.seenAt.day, $0.seenAt.weekday) }), as: .lines) {
      """
      SELECT CAST(strftime('%d', "sightings"."seenAt") AS INTEGER), CAST(strftime('%w', "sightings"."seenAt") AS INTEGER)
      FROM "sightings"
      (14, 5)
      """
    }
  }

  @Test func formatting() throws {
    assertInlineSnapshot(of: try run(Launch.select { $0.startsAt.strftime("%Y-%m-%d %H:%M") }), as: .lines) {
      """
      SELECT strftime('%Y-%m-%d %H:%M', "launches"."startsAt", 'unixepoch')
      FROM "launches"
      Optional("2026-08-13 00:00")
      """
    }
  }

  @Test func datesMovedByModifiers() throws {
    assertInlineSnapshot(of: try run(Launch.select { $0.startsAt(.startOfMonth) }), as: .lines) {
      """
      SELECT unixepoch("launches"."startsAt", 'unixepoch', 'start of month')
      FROM "launches"
      2026-08-01 00:00:00 +0000
      """
    }
    assertInlineSnapshot(of: try run(Entry.select { ($0.createdAt(.days(1)), $0.createdAt(.milliseconds(-1_500))) }), as: .lines) {
      """
      SELECT strftime('%Y-%m-%d %H:%M:%f', "entries"."createdAt", '1 days'), strftime('%Y-%m-%d %H:%M:%f', "entries"."createdAt", '-1.500 seconds')
      FROM "entries"
      (2026-08-15 06:59:37 +0000, 2026-08-14 06:59:35 +0000)
      """
    }
    // Text dates keep their milliseconds (a Date prints whole seconds).
    let moved = try database.read { db in
      try Entry.select { ($0.createdAt(.days(1)), $0.createdAt(.milliseconds(-1_500))) }.fetchOne(db)
    }
    #expect(moved.map { [$0.0.timeIntervalSince1970, $0.1.timeIntervalSince1970] } == [1_786_777_177.123, 1_786_690_775.623])
    assertInlineSnapshot(of: try run(Sighting.select { $0.seenAt(.lastDayOfMonth) }), as: .lines) {
      """
      SELECT julianday("sightings"."seenAt", 'start of month', '1 months', '-1 days')
      FROM "sightings"
      2026-08-31 00:00:00 +0000
      """
    }
  }

  /// Seconds that are not finite cannot move a date: the statement fails,
  /// naming the problem (before 2026-11-26 the process stopped on a precondition).
  @Test func secondsThatAreNotFiniteFailTheStatement() throws {
    let error = #expect(throws: DatabaseError.self) {
      try database.read { db in try Entry.select { $0.createdAt(.seconds(.nan)) }.fetchAll(db) }
    }
    #expect(error?.message?.contains("DateTimeModifier.seconds needs a finite number of seconds, not nan") == true, "\(String(describing: error))")
  }

  /// A modified date keeps its arguments: modifying it again, or reading a
  /// component, extends the one call.
  @Test func modifiersAndComponentsFuse() throws {
    assertInlineSnapshot(
      of: try run(Launch.select { ($0.startsAt(.startOfMonth)(.days(1)), $0.startsAt(.months(-3)).month) }), as: .lines
    ) {
      """
      SELECT unixepoch("launches"."startsAt", 'unixepoch', 'start of month', '1 days'), CAST(strftime('%m', "launches"."startsAt", 'unixepoch', '-3 months') AS INTEGER)
      FROM "launches"
      (2026-08-02 00:00:00 +0000, 5)
      """
    }
  }

  @Test func comparedWithNow() throws {
    assertInlineSnapshot(of: try run(Launch.where { $0.startsAt < .now(.days(7)) }.select(\.id)), as: .lines) {
      """
      SELECT "launches"."id"
      FROM "launches"
      WHERE ("launches"."startsAt" < unixepoch('now', '7 days'))
      1
      """
    }
    assertInlineSnapshot(of: try run(Entry.where { $0.createdAt < .now }.select(\.id)), as: .lines) {
      """
      SELECT "entries"."id"
      FROM "entries"
      WHERE ("entries"."createdAt" < strftime('%Y-%m-%d %H:%M:%f', 'now'))
      1
      """
    }
    assertInlineSnapshot(of: try run(Sighting.where { $0.seenAt < .now(.years(-100).startOfDay) }.select(\.id)), as: .lines) {
      """
      SELECT "sightings"."id"
      FROM "sightings"
      WHERE ("sightings"."seenAt" < julianday('now', '-100 years', 'start of day'))
      """
    }
  }

  @Test func groupedByYearAndMonth() throws {
    try database.write { db in
      try Launch.insert {
        Launch(id: 2, startsAt: Date(timeIntervalSince1970: 1_786_579_200 + 86_400 * 20))
        Launch(id: 3, startsAt: Date(timeIntervalSince1970: 1_786_579_200 + 86_400 * 40))
      }.execute(db)
    }
    let query = Launch
      .group(by: { ($0.startsAt.year, $0.startsAt.month) })
      .select { ($0.startsAt.year, $0.startsAt.month, $0.count()) }
    assertInlineSnapshot(of: try run(query), as: .lines) {
      """
      SELECT CAST(strftime('%Y', "launches"."startsAt", 'unixepoch') AS INTEGER), CAST(strftime('%m', "launches"."startsAt", 'unixepoch') AS INTEGER), count("launches"."id")
      FROM "launches"
      GROUP BY CAST(strftime('%Y', "launches"."startsAt", 'unixepoch') AS INTEGER), CAST(strftime('%m', "launches"."startsAt", 'unixepoch') AS INTEGER)
      (2026, 8, 1)
      (2026, 9, 2)
      """
    }
  }
}
