import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

import ChronicleTestSupport

@Table("readings") private struct Reading {
  let id: Int
  var value: Int?
  @Column(as: Date.UnixTimeRepresentation?.self)
  var confirmedAt: Date?
}

@DatabaseFunction(isDeterministic: true)
private func incremented(_ value: Int) -> Int {
  value + 1
}

/// `map` and `flatMap` on optional expressions, as upstream spells them:
/// the transform sees the value as not optional, NULL stays NULL and never
/// reaches it. Each with its SQL and the rows.
@Suite("Query builder: map and flatMap on optional expressions")
struct OptionalMapTests {
  let directory: TemporaryDirectory
  let database: ChronicleDatabase

  init() throws {
    directory = try TemporaryDirectory()
    var configuration = ChronicleConfiguration()
    configuration.database.prepareDatabase { db in db.add(function: $incremented) }
    database = try Chronicle.open(path: directory.path("app.sqlite"), configuration: configuration)
    try database.write { db in
      try db.execute(sql: """
        CREATE TABLE "readings" ("id" INTEGER PRIMARY KEY, "value" INTEGER, "confirmedAt" INTEGER) STRICT
        """)
      try Reading.insert {
        Reading(id: 1, value: 1, confirmedAt: Date(timeIntervalSince1970: 1_786_579_200))
        Reading(id: 2, value: nil, confirmedAt: nil)
        Reading(id: 3, value: 3, confirmedAt: nil)
      }.execute(db)
    }
  }

  func run(_ query: some QueryStatement) throws -> String { try database.sqlAndRows(query) }

  @Test func mapCallsAFunctionOnlyOnValues() throws {
    assertInlineSnapshot(of: try run(Reading.order(by: \.id).select { $0.value.map { $incremented($0) } }), as: .lines) {
      """
      SELECT CASE "readings"."value" IS NULL WHEN 1 THEN NULL ELSE "incremented"("readings"."value") END
      FROM "readings"
      ORDER BY "readings"."id"
      Optional(2)
      nil
      Optional(4)
      """
    }
    assertInlineSnapshot(of: try run(Reading.order(by: \.id).select { $0.value.map { $0 * 10 } ?? -1 }), as: .lines) {
      """
      SELECT coalesce(CASE "readings"."value" IS NULL WHEN 1 THEN NULL ELSE ("readings"."value" * 10) END, -1)
      FROM "readings"
      ORDER BY "readings"."id"
      10
      -1
      30
      """
    }
  }

  @Test func flatMapMayGiveNULL() throws {
    assertInlineSnapshot(of: try run(Reading.order(by: \.id).select { $0.value.flatMap { $0.nullif(3) } }), as: .lines) {
      """
      SELECT CASE "readings"."value" IS NULL WHEN 1 THEN NULL ELSE nullif("readings"."value", 3) END
      FROM "readings"
      ORDER BY "readings"."id"
      Optional(1)
      nil
      nil
      """
    }
  }

  /// An aggregate in the transform is the aggregate alone, as upstream
  /// writes it: it skips NULL itself, and a NULL test around it would read
  /// one row of the group (here the last, NULL, which made the sum NULL).
  /// A subquery's aggregate is the subquery's own: the test stays.
  @Test func aggregatesAreLeftBareAndSubqueriesAreNot() throws {
    try database.write { db in try Reading.insert { Reading(id: 4, value: nil, confirmedAt: nil) }.execute(db) }
    let total = Reading.select { ($0.value.flatMap { $0.sum() }, $0.value.flatMap { $0.max() }, $0.value.map { $0.count() }) }
    let highest = Reading.order(by: \.id).select { reading in reading.value.flatMap { _ in Reading.select { $0.value.max() } } }
    assertInlineSnapshot(of: [try run(total), try run(highest)].joined(separator: "\n"), as: .lines) {
      """
      SELECT sum("readings"."value"), max("readings"."value"), count("readings"."value")
      FROM "readings"
      (Optional(4), Optional(3), Optional(2))
      SELECT CASE "readings"."value" IS NULL WHEN 1 THEN NULL ELSE (
        SELECT max("readings"."value")
        FROM "readings"
      ) END
      FROM "readings"
      ORDER BY "readings"."id"
      Optional(3)
      nil
      Optional(3)
      nil
      """
    }
  }

  @Test func optionalDatesMapToTheirComponents() throws {
    assertInlineSnapshot(
      of: try run(Reading.order(by: \.id).select { ($0.id, $0.confirmedAt.map(\.year)) }), as: .lines
    ) {
      """
      SELECT "readings"."id", CASE "readings"."confirmedAt" IS NULL WHEN 1 THEN NULL ELSE CAST(strftime('%Y', "readings"."confirmedAt", 'unixepoch') AS INTEGER) END
      FROM "readings"
      ORDER BY "readings"."id"
      (1, Optional(2026))
      (2, nil)
      (3, nil)
      """
    }
    assertInlineSnapshot(
      of: try run(Reading.where { $0.confirmedAt.map { $0 > .now(.years(-10)) } ?? false }.select(\.id)), as: .lines
    ) {
      """
      SELECT "readings"."id"
      FROM "readings"
      WHERE coalesce(CASE "readings"."confirmedAt" IS NULL WHEN 1 THEN NULL ELSE ("readings"."confirmedAt" > unixepoch('now', '-10 years')) END, 0)
      1
      """
    }
  }
}
