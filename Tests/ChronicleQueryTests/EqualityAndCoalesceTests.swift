import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// `eq`/`neq` are SQL's `=`/`<>` and `is`/`isNot` are `IS`/`IS NOT`, as
/// upstream writes them; `==`/`!=` keep Swift's meaning on nullable sides
/// (`IS`); `??` is one `coalesce` call; `find` is `IN`. Four reminders:
/// Milk (high, no notes), Eggs (no priority, notes), Bread (low, no notes),
/// Jam (neither).
@Suite("Query builder: equality, NULL and coalesce")
struct EqualityAndCoalesceTests {
  let fixture = BuilderClosureAndCombinatorTests()

  /// A plain value named by an implicit member, its type read from the
  /// column: `$0.priority == .high` (Swift looked `.high` up in
  /// Concurrency's `TaskPriority` and refused it before 2026-11-27), in
  /// comparisons, `in`, `is` and `eq`; `.now` stays SQLite's `now`.
  @Test func implicitMembersNameValuesOfTheColumnsType() throws {
    let seeded = try fixture.seeded()
    let queries: [Select<Reminder, String>] = [
      Reminder.where { $0.priority == .high }.select(\.title),
      Reminder.where { $0.priority != .low }.select(\.title),
      Reminder.where { $0.priority > .low }.select(\.title),
      Reminder.where { $0.priority.in([.low, .medium]) }.select(\.title),
      Reminder.where { $0.priority.is(.high) || $0.priority.eq(.low) }.select(\.title),
      Reminder.where { $0.title == "Milk" && $0.priority == .high }.select(\.title),
      Reminder.where { $0.dueDate == nil && $0.dueDate < .now }.select(\.title),
    ]
    assertInlineSnapshot(of: try fixture.render(queries, in: seeded.database), as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."priority" IS 3)
        -> Milk
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."priority" IS NOT 1)
        -> Milk, Eggs, Jam (50% off)
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."priority" > 1)
        -> Milk
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."priority" IN (1, 2))
        -> Bread
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (("reminders"."priority" IS 3) OR ("reminders"."priority" = 1))
        -> Milk, Bread
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (("reminders"."title" = 'Milk') AND ("reminders"."priority" IS 3))
        -> Milk
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (("reminders"."dueDate" IS NULL) AND ("reminders"."dueDate" < strftime('%Y-%m-%d %H:%M:%f', 'now')))
        -> 
      """
    }
    assertInlineSnapshot(of: MDCatalog.Panel.where { $0.finish == .gloss && $0.finish.in([.gloss]) }.query.description, as: .lines) {
      """
      SELECT "mdPanels"."id", "mdPanels"."dimensions", "mdPanels"."finish"
      FROM "mdPanels"
      WHERE (("mdPanels"."finish" = 'gloss') AND ("mdPanels"."finish" IN ('gloss')))
      """
    }
  }

  @Test func equalityAgainstNULLAsUpstreamWritesIt() throws {
    let seeded = try fixture.seeded()
    let database = seeded.database
    let queries: [Select<Reminder, String>] = [
      Reminder.where { $0.notes.eq($0.notes) }.select(\.title),
      Reminder.where { $0.notes.is($0.notes) }.select(\.title),
      Reminder.where { $0.notes == $0.notes }.select(\.title),
      Reminder.where { $0.notes.neq("a dozen") }.select(\.title),
      Reminder.where { $0.notes.isNot("a dozen") }.select(\.title),
      Reminder.where { $0.priority.is(Reminder.Priority.high) }.select(\.title),
      Reminder.where { $0.priority.isNot(Reminder.Priority.high) }.select(\.title),
      Reminder.where { $0.notes.eq(String?.none) }.select(\.title),
      Reminder.where { $0.notes.is(nil) }.select(\.title),
    ]
    assertInlineSnapshot(of: try fixture.render(queries, in: database), as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."notes" = "reminders"."notes")
        -> Eggs
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."notes" IS "reminders"."notes")
        -> Milk, Eggs, Bread, Jam (50% off)
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."notes" IS "reminders"."notes")
        -> Milk, Eggs, Bread, Jam (50% off)
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."notes" <> 'a dozen')
        -> 
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."notes" IS NOT 'a dozen')
        -> Milk, Bread, Jam (50% off)
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."priority" IS 3)
        -> Milk
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."priority" IS NOT 3)
        -> Eggs, Bread, Jam (50% off)
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."notes" = NULL)
        -> 
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."notes" IS NULL)
        -> Milk, Bread, Jam (50% off)
      """
    }
  }

  /// `== nil` is `IS NULL`, on either side, in `where` and in `select`
  /// (Swift's own `== nil` would take the column as a value that is never
  /// nil, and select nothing).
  @Test func comparingWithNilIsNULL() throws {
    let seeded = try fixture.seeded()
    let database = seeded.database
    let queries: [Select<Reminder, String>] = [
      Reminder.where { $0.notes == nil }.select(\.title),
      Reminder.where { $0.priority != nil }.select(\.title),
      Reminder.where { nil == $0.priority }.select(\.title),
      Reminder.where { nil != $0.notes && $0.priority == nil }.select(\.title),
    ]
    assertInlineSnapshot(of: try fixture.render(queries, in: database), as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."notes" IS NULL)
        -> Milk, Bread, Jam (50% off)
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."priority" IS NOT NULL)
        -> Milk, Bread
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."priority" IS NULL)
        -> Eggs, Jam (50% off)
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE (("reminders"."notes" IS NOT NULL) AND ("reminders"."priority" IS NULL))
        -> Eggs
      """
    }
    assertInlineSnapshot(of: try database.sqlAndRows(Reminder.select { ($0.title, $0.notes == nil) }), as: .lines) {
      """
      SELECT "reminders"."title", ("reminders"."notes" IS NULL)
      FROM "reminders"
      ("Milk", true)
      ("Eggs", false)
      ("Bread", true)
      ("Jam (50% off)", true)
      """
    }
  }

  @Test func coalesceChainsAndFind() throws {
    let seeded = try fixture.seeded()
    let database = seeded.database
    let queries: [Select<Reminder, String>] = [
      Reminder.select { $0.notes ?? $0.title },
      Reminder.select { $0.notes ?? $0.notes ?? "none" },
      Reminder.select { ($0.notes ?? $0.notes).ifnull("-") },
    ]
    let milk = try database.read { db in try Reminder.where { $0.title == "Milk" }.fetchOne(db) }
    let found = try database.read { db in try Reminder.find(#require(milk).id).select(\.title).fetchAll(db) }
    let sql = Reminder.find(UUID(uuidString: "00000000-0000-0000-0000-0000000000aa")!).select(\.title).query.description
    assertInlineSnapshot(of: try fixture.render(queries, in: database) + "\n" + sql + "\n  -> " + found.joined(), as: .lines) {
      """
      SELECT coalesce("reminders"."notes", "reminders"."title")
      FROM "reminders"
        -> Milk, a dozen, Bread, Jam (50% off)
      SELECT coalesce("reminders"."notes", "reminders"."notes", 'none')
      FROM "reminders"
        -> none, a dozen, none, none
      SELECT ifnull(coalesce("reminders"."notes", "reminders"."notes"), '-')
      FROM "reminders"
        -> -, a dozen, -, -
      SELECT "reminders"."title"
      FROM "reminders"
      WHERE ("reminders"."id" IN ('00000000-0000-0000-0000-0000000000aa'))
        -> Milk
      """
    }
  }
}
