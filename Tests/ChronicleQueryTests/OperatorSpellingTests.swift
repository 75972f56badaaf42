import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Operators written with a Swift value first, GLOB, COLLATE, CAST, `??` on
/// a scalar subquery and `Values` of expressions, as upstream spells them,
/// with the SQL and what SQLite returns.
@Suite("Query builder: literal-first operators, glob, collate, cast")
struct OperatorSpellingTests {
  @Test func literalFirstOperators() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try Tag.insert {
        Tag(title: "alpha", useCount: 1)
        Tag(title: "Beta", useCount: 6)
        Tag(title: "gamma", useCount: 12)
      }.execute(db)
    }
    let arithmetic = Tag.order(by: \.useCount).select { (10 - $0.useCount, 2 * $0.useCount, 12 / $0.useCount) }
    let bits = Tag.order(by: \.useCount).select { (13 % $0.useCount, 1 << $0.useCount, 7 & $0.useCount) }
    let text = Tag.order(by: \.useCount).select { "#" + $0.title + "!" }
    let comparisons = Tag.where { 5 < $0.useCount && 12 != $0.useCount || "alpha" == $0.title }.order(by: \.title).select(\.title)
    let nullable = Reminder.where { nil as String? == $0.notes }.select { nil as Int? == $0.priority.cast() }
    let output = try fixture.database.read { db in
      [
        arithmetic.query.description, try arithmetic.fetchAll(db).map { "\($0)" }.joined(separator: "\n"),
        bits.query.description, try bits.fetchAll(db).map { "\($0)" }.joined(separator: "\n"),
        text.query.description, try text.fetchAll(db).joined(separator: ", "),
        comparisons.query.description, try comparisons.fetchAll(db).joined(separator: ", "),
        nullable.query.description,
      ].joined(separator: "\n")
    }
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT (10 - "tags"."uses"), (2 * "tags"."uses"), (12 / "tags"."uses")
      FROM "tags"
      ORDER BY "tags"."uses"
      (9, 2, 12)
      (4, 12, 2)
      (-2, 24, 1)
      SELECT (13 % "tags"."uses"), (1 << "tags"."uses"), (7 & "tags"."uses")
      FROM "tags"
      ORDER BY "tags"."uses"
      (Optional(0), 2, 1)
      (Optional(1), 64, 6)
      (Optional(1), 4096, 4)
      SELECT (('#' || "tags"."title") || '!')
      FROM "tags"
      ORDER BY "tags"."uses"
      #alpha!, #Beta!, #gamma!
      SELECT "tags"."title"
      FROM "tags"
      WHERE (((5 < "tags"."uses") AND (12 <> "tags"."uses")) OR ('alpha' = "tags"."title"))
      ORDER BY "tags"."title"
      Beta, alpha
      SELECT (NULL IS CAST("reminders"."priority" AS INTEGER))
      FROM "reminders"
      WHERE (NULL IS "reminders"."notes")
      """
    }
  }

  @Test func globCollateCastAndSubqueryCoalesce() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try Tag.insert {
        Tag(title: "apple", useCount: 3)
        Tag(title: "Avocado", useCount: 8)
        Tag(title: "banana", useCount: 5)
      }.execute(db)
    }
    let glob = Tag.where { $0.title.glob("a*") }.select(\.title)
    let like = Tag.where { $0.title.like("a%", escape: "\\") }.order(by: \.title).select(\.title)
    let collated = Tag.order { $0.title.collate(.nocase) }.select(\.title)
    let equalIgnoringCase = Tag.where { $0.title.collate(.nocase).eq("AVOCADO") }.select(\.title)
    let cast = Tag.where { $0.useCount.cast() >= Tag.select { $0.useCount.avg() ?? 0 } }.order(by: \.title)
      .select { ($0.title, $0.useCount.cast(as: String.self), $0.title.cast(as: Int.self)) }
    let between = Tag.where {
      $0.useCount.between(Tag.select { $0.useCount.min() } ?? 0, and: (Tag.select { $0.useCount.max() } ?? 0) - 1)
    }.order(by: \.title).select(\.title)
    let noRows = Tag.where { _ in false }.select { $0.useCount.max() }
    let coalescedEmpty = Values(noRows ?? -1)
    let output = try fixture.database.read { db in
      [
        glob.query.description, try glob.fetchAll(db).joined(separator: ", "),
        like.query.description, try like.fetchAll(db).joined(separator: ", "),
        collated.query.description, try collated.fetchAll(db).joined(separator: ", "),
        equalIgnoringCase.query.description, try equalIgnoringCase.fetchAll(db).joined(separator: ", "),
        cast.query.description, try cast.fetchAll(db).map { "\($0)" }.joined(separator: "\n"),
        between.query.description, try between.fetchAll(db).joined(separator: ", "),
        coalescedEmpty.query.description, try coalescedEmpty.fetchAll(db).map { "\($0)" }.joined(separator: ", "),
      ].joined(separator: "\n")
    }
    assertInlineSnapshot(of: output, as: .lines) {
      #"""
      SELECT "tags"."title"
      FROM "tags"
      WHERE ("tags"."title" GLOB 'a*')
      apple
      SELECT "tags"."title"
      FROM "tags"
      WHERE ("tags"."title" LIKE 'a%' ESCAPE '\')
      ORDER BY "tags"."title"
      Avocado, apple
      SELECT "tags"."title"
      FROM "tags"
      ORDER BY "tags"."title" COLLATE "NOCASE"
      apple, Avocado, banana
      SELECT "tags"."title"
      FROM "tags"
      WHERE ("tags"."title" COLLATE "NOCASE" = 'AVOCADO')
      Avocado
      SELECT "tags"."title", CAST("tags"."uses" AS TEXT), CAST("tags"."title" AS INTEGER)
      FROM "tags"
      WHERE (CAST("tags"."uses" AS REAL) >= (
        SELECT coalesce(avg("tags"."uses"), 0.0)
        FROM "tags"
      ))
      ORDER BY "tags"."title"
      ("Avocado", "8", 0)
      SELECT "tags"."title"
      FROM "tags"
      WHERE ("tags"."uses" BETWEEN coalesce((
        SELECT min("tags"."uses")
        FROM "tags"
      ), 0) AND (coalesce((
        SELECT max("tags"."uses")
        FROM "tags"
      ), 0) - 1))
      ORDER BY "tags"."title"
      apple, banana
      SELECT coalesce((
        SELECT max("tags"."uses")
        FROM "tags"
        WHERE 0
      ), -1)
      -1
      """#
    }
  }

  @Test func valuesOfExpressions() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try Tag.insert { Tag(title: "home", useCount: 2) }.execute(db)
    }
    let exists = Values(Tag.exists())
    let missing = Values(Tag.where { $0.title == "work" }.exists())
    let several = Values(1, "two", Tag.count())
    let output = try fixture.database.read { db in
      [
        exists.query.description, "\(try exists.fetchAll(db))",
        missing.query.description, "\(try missing.fetchAll(db))",
        several.query.description, "\(try several.fetchAll(db))",
      ].joined(separator: "\n")
    }
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT (EXISTS (
        SELECT "tags"."title", "tags"."uses"
        FROM "tags"
      ))
      [true]
      SELECT (EXISTS (
        SELECT "tags"."title", "tags"."uses"
        FROM "tags"
        WHERE ("tags"."title" = 'work')
      ))
      [false]
      SELECT 1, 'two', (
        SELECT count(*)
        FROM "tags"
      )
      [(1, "two", 1)]
      """
    }
  }
}
