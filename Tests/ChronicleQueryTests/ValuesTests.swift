import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// `Values { … }`: rows given in Swift, read back as rows, combined with
/// selects and inserted, as upstream spells it.
@Suite("Query builder: VALUES")
struct ValuesTests {
  @Test func rowsOfValuesReadBack() throws {
    let fixture = try RemindersDatabase()
    let includeGoodbye = false
    let pairs = Values {
      for n in 1...2 { (n, "Hello") }
      if includeGoodbye { (3, "Goodbye") }
    }
    let triples = Values {
      (1, "Hello", true)
      (2, "Goodbye", false)
    }
    let words = Values {
      "Hello"
      "Goodbye"
    }
    let combined = triples.union(Values { (3, "Again", true) })
    let none = Values { if includeGoodbye { (1, "Hello") } }
    let output = try fixture.database.read { db in
      [
        pairs.query.description, "\(try pairs.fetchAll(db))",
        triples.query.description, "\(try triples.fetchAll(db))",
        words.query.description, "\(try words.fetchAll(db))",
        combined.query.description, "\(try combined.fetchAll(db))",
        none.query.description, "\(try none.fetchAll(db))",
      ]
    }
    assertInlineSnapshot(of: output.joined(separator: "\n"), as: .lines) {
      """
      VALUES
      (1, 'Hello'), (2, 'Hello')
      [(1, "Hello"), (2, "Hello")]
      VALUES
      (1, 'Hello', 1), (2, 'Goodbye', 0)
      [(1, "Hello", true), (2, "Goodbye", false)]
      VALUES
      ('Hello'), ('Goodbye')
      ["Hello", "Goodbye"]
      VALUES
      (1, 'Hello', 1), (2, 'Goodbye', 0)
      UNION
      VALUES
      (3, 'Again', 1)
      [(1, "Hello", true), (2, "Goodbye", false), (3, "Again", true)]
      SELECT NULL, NULL
      WHERE 0
      []
      """
    }
  }

  /// A select of expressions that reads no table, as upstream's CaseTests
  /// write it: `Select(expression)`, a CASE built with `reduce`.
  @Test func aSelectOfExpressionsAlone() throws {
    let fixture = try RemindersDatabase()
    let ids = Array([2, 3, 5, 1, 4].enumerated())
    let (first, rest) = (ids.first!, ids.dropFirst())
    let position = Select(
      rest
        .reduce(Case(5).when(first.element, then: first.offset)) { cases, id in
          cases.when(id.element, then: id.offset)
        }
        .else(0)
    )
    let pair = Select(Reminder.exists(), Case().when(true, then: "yes").else("no"))
    let output = try fixture.database.read { db in
      [position.query.description, "\(try position.fetchAll(db))", pair.query.description, "\(try pair.fetchAll(db))"]
    }
    assertInlineSnapshot(of: output.joined(separator: "\n"), as: .lines) {
      """
      SELECT CASE 5 WHEN 2 THEN 0 WHEN 3 THEN 1 WHEN 5 THEN 2 WHEN 1 THEN 3 WHEN 4 THEN 4 ELSE 0 END
      [2]
      SELECT (EXISTS (
        SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
        FROM "reminders"
      )), CASE WHEN 1 THEN 'yes' ELSE 'no' END
      [(false, "yes")]
      """
    }
  }

  @Test func valuesInserted() throws {
    let fixture = try RemindersDatabase()
    let insert = Tag.insert { $0.title } select: { Values { "chores"; "vacation" } }
    let pairs = Tag.insert { ($0.title, $0.useCount) } select: { Values { ("errands", 3) } }
    let condition = false
    let nothing = Tag.insert { $0.title } select: { Values { if condition { "never" } } }
    try fixture.database.write { db in
      try insert.execute(db)
      try pairs.execute(db)
      try nothing.execute(db)
    }
    let tags = try fixture.database.read { db in try Tag.order(by: \.title).fetchAll(db).map { "\($0.title) \($0.useCount)" } }
    let output = [insert, pairs, nothing].map(\.query.description) + tags
    assertInlineSnapshot(of: output.joined(separator: "\n"), as: .lines) {
      """
      INSERT INTO "tags"
      ("title")
      VALUES
      ('chores'), ('vacation')
      INSERT INTO "tags"
      ("title", "uses")
      VALUES
      ('errands', 3)
      INSERT INTO "tags"
      ("title")
      SELECT NULL
      WHERE 0
      chores 0
      errands 3
      vacation 0
      """
    }
  }
}
