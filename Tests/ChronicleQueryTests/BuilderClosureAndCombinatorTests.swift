import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Spellings SQLiteData users write: `where`/`order`/`having` closures with
/// `if`, `switch` and `for`; scopes combined with `or`, `not`, `&&`, `||`,
/// `!`; `none`; sign, bitwise and membership operators; compound assignments.
@Suite("Query builder: builder closures, combined scopes, operators")
struct BuilderClosureAndCombinatorTests {
  let list = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!

  func seeded() throws -> RemindersDatabase {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try RemindersList.insert { RemindersList.Draft(id: list, title: "Home") }.execute(db)
      try Reminder.insert {
        Reminder.Draft(remindersListID: list, title: "Milk", isCompleted: true, priority: .high, score: 3)
        Reminder.Draft(remindersListID: list, title: "Eggs", notes: "a dozen", score: 1)
        Reminder.Draft(remindersListID: list, title: "Bread", priority: .low, score: 2)
        Reminder.Draft(remindersListID: list, title: "Jam (50% off)", isCompleted: true, score: 5)
      }.execute(db)
    }
    return fixture
  }

  /// The SQL of each query, then its titles, one query per block.
  func render(_ queries: [Select<Reminder, String>], in database: ChronicleDatabase) throws -> String {
    try database.read { db in
      try queries.map { query in query.query.description + "\n  -> " + (try query.fetchAll(db)).joined(separator: ", ") }
        .joined(separator: "\n")
    }
  }

  @Test func whereClosuresWithControlFlow() throws {
    let fixture = try seeded()
    func titles(includeCompleted: Bool, words: [String], byScore: Bool) -> Select<Reminder, String> {
      Reminder
        .where {
          if !includeCompleted { !$0.isCompleted }
          for word in words { $0.title.contains(word) }
        }
        .order {
          if byScore { $0.score.desc() } else { $0.title }
        }
        .select(\.title)
    }
    let output = try render(
      [
        titles(includeCompleted: true, words: [], byScore: false),
        titles(includeCompleted: false, words: [], byScore: true),
        titles(includeCompleted: true, words: ["a", "m"], byScore: true),
      ], in: fixture.database)
    assertInlineSnapshot(of: output, as: .lines) {
      #"""
      SELECT "reminders"."title"
      FROM "reminders"
      ORDER BY "reminders"."title"
        -> Bread, Eggs, Jam (50% off), Milk
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE NOT ("reminders"."isCompleted")
      ORDER BY "reminders"."score" DESC
        -> Bread, Eggs
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."title" LIKE '%a%' ESCAPE '\') AND ("reminders"."title" LIKE '%m%' ESCAPE '\')
      ORDER BY "reminders"."score" DESC
        -> Jam (50% off)
      """#
    }
  }

  @Test func conditionsWrittenAsSQLKeepTheirMeaningBesideOthers() throws {
    let fixture = try seeded()
    let query = Reminder
      .where { #sql("\($0.title) = 'Milk' OR \($0.title) = 'Eggs'", as: Bool.self) }
      .where { !$0.isCompleted }
      .select(\.title)
    assertInlineSnapshot(of: try render([query], in: fixture.database), as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."title" = 'Milk' OR "reminders"."title" = 'Eggs') AND (NOT ("reminders"."isCompleted"))
        -> Eggs
      """
    }
  }

  @Test func scopesCombinedAsWholeFilters() throws {
    let fixture = try seeded()
    let completed = Reminder.where(\.isCompleted)
    let urgent = Reminder.where { $0.priority == Reminder.Priority.high }
    let cheap = Reminder.where { $0.score < 3 }
    let output = try render(
      [
        completed.or(cheap).order(by: \.title).select(\.title),
        (completed || cheap).order(by: \.title).select(\.title),
        (completed && urgent).select(\.title),
        completed.not().order(by: \.title).select(\.title),
        (!completed).order(by: \.title).select(\.title),
        Reminder.all.or(cheap).order(by: \.title).select(\.title),
        Reminder.all.not().select(\.title),
        Reminder.none.select(\.title),
        Reminder.none.or(urgent).select(\.title),
        // The other side as an implicit member, as upstream writes it.
        Reminder.where(\.isCompleted).and(.where { $0.score < 3 }).select(\.title),
        Reminder.where(\.isCompleted).or(.where(\.isCompleted)).order(by: \.title).select(\.title),
      ], in: fixture.database)
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (("reminders"."isCompleted") OR ("reminders"."score" < 3.0))
      ORDER BY "reminders"."title"
        -> Bread, Eggs, Jam (50% off), Milk
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (("reminders"."isCompleted") OR ("reminders"."score" < 3.0))
      ORDER BY "reminders"."title"
        -> Bread, Eggs, Jam (50% off), Milk
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."isCompleted") AND ("reminders"."priority" IS 3)
        -> Milk
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (NOT ("reminders"."isCompleted"))
      ORDER BY "reminders"."title"
        -> Bread, Eggs
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (NOT ("reminders"."isCompleted"))
      ORDER BY "reminders"."title"
        -> Bread, Eggs
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."score" < 3.0)
      ORDER BY "reminders"."title"
        -> Bread, Eggs
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (NOT (1))
        -> 
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE 0
        -> 
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ((0) OR ("reminders"."priority" IS 3))
        -> Milk
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."isCompleted") AND ("reminders"."score" < 3.0)
        -> 
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (("reminders"."isCompleted") OR ("reminders"."isCompleted"))
      ORDER BY "reminders"."title"
        -> Jam (50% off), Milk
      """
    }
  }

  @Test func signBitwiseAndMembershipOperators() throws {
    let fixture = try seeded()
    try fixture.database.write { db in
      try Tag.insert { Tag(title: "a", useCount: 6); Tag(title: "b", useCount: -3) }.execute(db)
    }
    let negated: Select<Tag, Int> = Tag.order(by: \.title).select { -$0.useCount }
    let masked: Select<Tag, Int> = Tag.order(by: \.title).select { ($0.useCount & 3) | 8 }
    let shifted: Select<Tag, Int> = Tag.order(by: \.title).select { ($0.useCount << 2) >> 1 }
    let inverted: Select<Tag, Int> = Tag.order(by: \.title).select { ~$0.useCount }
    let listed: Select<Tag, String> = Tag.where { [6, 7].contains($0.useCount) }.select(\.title)
    let closed: Select<Tag, String> = Tag.where { (-3...0).contains($0.useCount) }.select(\.title)
    let halfOpen: Select<Tag, String> = Tag.where { (0..<6).contains($0.useCount) }.select(\.title)
    let subquery: Select<Tag, String> = Tag.where { Tag.where { $0.useCount > 0 }.select(\.title).contains($0.title) }.select(\.title)
    let output = try fixture.database.read { db in
      var lines: [String] = []
      for query in [negated, masked, shifted, inverted] {
        lines.append(query.query.description + "\n  -> " + (try query.fetchAll(db)).map(String.init).joined(separator: ", "))
      }
      for query in [listed, closed, halfOpen, subquery] {
        lines.append(query.query.description + "\n  -> " + (try query.fetchAll(db)).joined(separator: ", "))
      }
      return lines.joined(separator: "\n")
    }
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT -("tags"."uses")
      FROM "tags"
      ORDER BY "tags"."title"
        -> -6, 3
      SELECT (("tags"."uses" & 3) | 8)
      FROM "tags"
      ORDER BY "tags"."title"
        -> 10, 9
      SELECT (("tags"."uses" << 2) >> 1)
      FROM "tags"
      ORDER BY "tags"."title"
        -> 12, -6
      SELECT ~("tags"."uses")
      FROM "tags"
      ORDER BY "tags"."title"
        -> -7, 2
      SELECT "tags"."title"
      FROM "tags"
      WHERE ("tags"."uses" IN (6, 7))
        -> a
      SELECT "tags"."title"
      FROM "tags"
      WHERE ("tags"."uses" BETWEEN -3 AND 0)
        -> b
      SELECT "tags"."title"
      FROM "tags"
      WHERE (("tags"."uses" >= 0) AND ("tags"."uses" < 6))
        -> 
      SELECT "tags"."title"
      FROM "tags"
      WHERE ("tags"."title" IN (
        SELECT "tags"."title"
        FROM "tags"
        WHERE ("tags"."uses" > 0)
      ))
        -> a
      """
    }
  }

  @Test func compoundAssignmentsInUpdates() throws {
    let fixture = try seeded()
    try fixture.database.write { db in
      try Tag.insert { Tag(title: "a", useCount: 12) }.execute(db)
    }
    let update = Tag.update {
      $0.useCount /= 2
      $0.useCount |= 1
      $0.useCount <<= 1
    }
    let count = try fixture.database.write { db in
      try update.execute(db)
      return try Tag.select(\.useCount).fetchOne(db)
    }
    assertInlineSnapshot(of: update.query.description + "\n  -> \(count ?? -1)", as: .lines) {
      """
      UPDATE "tags"
      SET "uses" = ((("tags"."uses" / 2) | 1) << 1)
        -> 14
      """
    }
  }

  /// The spellings README gives for the update forms that do not compile yet.
  @Test func updateSpellingsREADMEGivesInsteadOfTheUpstreamOnes() throws {
    let fixture = try seeded()
    let update = Reminder.where { $0.title == "Eggs" }.update {
      $0.notes = String?.some("")
      $0.toggle(\.isCompleted)
      $0.title += "!"
      $0.priority = Reminder.Priority?.some(.high)
    }
    let row = try fixture.database.write { db in
      try update.execute(db)
      return try Reminder.where { $0.title == "Eggs!" }.select { ($0.notes, $0.isCompleted, $0.priority) }.fetchOne(db)
    }
    assertInlineSnapshot(of: update.query.description + "\n  -> \(String(describing: row))", as: .lines) {
      """
      UPDATE "reminders"
      SET "notes" = '', "isCompleted" = NOT ("reminders"."isCompleted"), "title" = ("reminders"."title" || '!'), "priority" = 3
      WHERE ("reminders"."title" = 'Eggs')
        -> Optional((Optional(""), true, Optional(ChronicleQueryTests.Reminder.Priority.high)))
      """
    }
  }

  @Test func existenceAndExclusion() throws {
    let fixture = try seeded()
    try fixture.database.write { db in
      try Tag.insert { Tag(title: "Milk", useCount: 1) }.execute(db)
    }
    let tagged: Select<Reminder, String> = Reminder.where { _ in Tag.where { $0.title == "Milk" }.exists() }.where { $0.title == "Eggs" }.select(\.title)
    let untagged: Select<Reminder, String> = Reminder.where { $0.title.notIn(Tag.select(\.title)) }.order(by: \.title).select(\.title)
    let excluded: Select<Reminder, String> = Reminder.where { $0.title.notIn(["Milk", "Eggs"]) }.order(by: \.title).select(\.title)
    let everything: Select<Reminder, String> = Reminder.where { $0.title.notIn([String]()) && Tag.exists() }.order(by: \.title).select(\.title)
    assertInlineSnapshot(of: try render([tagged, untagged, excluded, everything], in: fixture.database), as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (EXISTS (
        SELECT "tags"."title", "tags"."uses"
        FROM "tags"
        WHERE ("tags"."title" = 'Milk')
      )) AND ("reminders"."title" = 'Eggs')
        -> Eggs
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."title" NOT IN (
        SELECT "tags"."title"
        FROM "tags"
      ))
      ORDER BY "reminders"."title"
        -> Bread, Eggs, Jam (50% off)
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."title" NOT IN ('Milk', 'Eggs'))
      ORDER BY "reminders"."title"
        -> Bread, Jam (50% off)
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (1 AND (EXISTS (
        SELECT "tags"."title", "tags"."uses"
        FROM "tags"
      )))
      ORDER BY "reminders"."title"
        -> Bread, Eggs, Jam (50% off), Milk
      """
    }
  }
}
