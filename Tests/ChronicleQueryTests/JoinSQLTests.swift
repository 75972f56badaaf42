import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

@Suite("Query builder: joins, grouping, aggregates (SQL)")
struct JoinSQLTests {
  @Test func joinKinds() {
    assertInlineSnapshot(of: Reminder.join(RemindersList.all) { $0.remindersListID.eq($1.id) }.select { ($0.title, $1.title) }.query.description, as: .lines) {
      """
      SELECT "reminders"."title", "remindersLists"."title"
      FROM "reminders"
      JOIN "remindersLists" ON ("reminders"."remindersListID" = "remindersLists"."id")
      """
    }
    assertInlineSnapshot(of: Reminder.leftJoin(ReminderTag.all) { $0.id.eq($1.reminderID) }.select { ($0.title, $1.tagTitle) }.query.description, as: .lines) {
      """
      SELECT "reminders"."title", "reminderTags"."tagTitle"
      FROM "reminders"
      LEFT JOIN "reminderTags" ON ("reminders"."id" = "reminderTags"."reminderID")
      """
    }
    assertInlineSnapshot(
      of: RemindersList.where { $0.position > 0 }.rightJoin(Reminder.where { !$0.isCompleted }) { $0.id.eq($1.remindersListID) }
        .select { ($0.title, $1.title) }.query.description, as: .lines) {
      """
      SELECT "remindersLists"."title", "reminders"."title"
      FROM "remindersLists"
      RIGHT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID") AND (NOT ("reminders"."isCompleted"))
      WHERE ("remindersLists"."position" > 0)
      """
    }
    assertInlineSnapshot(of: RemindersList.fullJoin(Reminder.all) { $0.id.eq($1.remindersListID) }.select { ($0.id, $1.id) }.query.description, as: .lines) {
      """
      SELECT "remindersLists"."id", "reminders"."id"
      FROM "remindersLists"
      FULL JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      """
    }
  }

  @Test func threeTablesGroupedWithAggregates() {
    let withTags = Reminder.group(by: \.id)
      .leftJoin(ReminderTag.all) { $0.id.eq($1.reminderID) }
      .leftJoin(Tag.all) { $1.tagTitle.eq($2.primaryKey) }
      .having { $2.count() > 1 }
      .order { reminder, _, _ in reminder.title }
      .select { ($0.title, $2.title.groupConcat(separator: ", "), $2.useCount.sum(), $2.title.jsonGroupArray(filter: $2.useCount > 0)) }
    assertInlineSnapshot(of: withTags.query.description, as: .lines) {
      """
      SELECT "reminders"."title", group_concat("tags"."title", ', '), sum("tags"."uses"), json_group_array("tags"."title") FILTER (WHERE ("tags"."uses" > 0))
      FROM "reminders"
      LEFT JOIN "reminderTags" ON ("reminders"."id" = "reminderTags"."reminderID")
      LEFT JOIN "tags" ON ("reminderTags"."tagTitle" = "tags"."title")
      GROUP BY "reminders"."id"
      HAVING (count("tags"."title") > 1)
      ORDER BY "reminders"."title"
      """
    }
    assertInlineSnapshot(
      of: RemindersList.group(by: \.id).leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
        .select {
          ListStats.Columns(
            title: $0.title, reminderCount: $1.count(), completedCount: $1.count(filter: $1.isCompleted ?? false),
            averageScore: $1.score.avg(), tags: $1.title.groupConcat(distinct: true))
        }.query.description, as: .lines) {
      """
      SELECT "remindersLists"."title" AS "title", count("reminders"."id") AS "reminderCount", count("reminders"."id") FILTER (WHERE coalesce("reminders"."isCompleted", 0)) AS "completedCount", avg("reminders"."score") AS "averageScore", group_concat(DISTINCT "reminders"."title") AS "tags"
      FROM "remindersLists"
      LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      GROUP BY "remindersLists"."id"
      """
    }
  }

  @Test func selfJoinThroughAnAlias() {
    assertInlineSnapshot(
      of: Employee.leftJoin(Employee.as(Manager.self).all) { $0.managerID.eq($1.id) }.select { ($0.name, $1.name) }.query.description,
      as: .lines) {
      """
      SELECT "employees"."name", "managers"."name"
      FROM "employees"
      LEFT JOIN "employees" AS "managers" ON ("employees"."managerID" = "managers"."id")
      """
    }
    assertInlineSnapshot(
      of: Employee.join(Employee.as(Manager.self).where { $0.name != "" }) { $0.id.eq($1.managerID) }.select { employee, _ in employee }.distinct().query.description,
      as: .lines) {
      """
      SELECT DISTINCT "employees"."id", "employees"."name", "employees"."managerID"
      FROM "employees"
      JOIN "employees" AS "managers" ON ("employees"."id" = "managers"."managerID") AND ("managers"."name" <> '')
      """
    }
  }

  @Test func caseExpressions() {
    assertInlineSnapshot(
      of: Reminder.select { ($0.title, Case($0.priority).when(.low, then: "Low").when(.high, then: "High").else("Normal")) }.query.description,
      as: .lines) {
      """
      SELECT "reminders"."title", CASE "reminders"."priority" WHEN 1 THEN 'Low' WHEN 3 THEN 'High' ELSE 'Normal' END
      FROM "reminders"
      """
    }
    assertInlineSnapshot(
      of: Reminder.where { Case().when($0.score < 10, then: true).else(false) }
        .select { Case().when($0.isCompleted, then: "Done").when($0.dueDate.isNot(nil), then: "Scheduled") }.query.description,
      as: .lines) {
      """
      SELECT CASE WHEN "reminders"."isCompleted" THEN 'Done' WHEN ("reminders"."dueDate" IS NOT NULL) THEN 'Scheduled' END
      FROM "reminders"
      WHERE CASE WHEN ("reminders"."score" < 10.0) THEN 1 ELSE 0 END
      """
    }
    assertInlineSnapshot(
      of: Reminder.where { $0.isCompleted }.update { $0.priority = Case($0.priority).when(.low, then: .medium).else(.high) }.query.description,
      as: .lines) {
      """
      UPDATE "reminders"
      SET "priority" = CASE "reminders"."priority" WHEN 1 THEN 2 ELSE 3 END
      WHERE "reminders"."isCompleted"
      """
    }
  }

  @Test func compoundSelects() {
    assertInlineSnapshot(of: Reminder.select(\.title).union(RemindersList.select(\.title)).query.description, as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      UNION
      SELECT "remindersLists"."title"
      FROM "remindersLists"
      """
    }
    assertInlineSnapshot(of: Reminder.select(\.title).union(all: true, Tag.select(\.title).order(by: \.title).limit(3)).query.description, as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      UNION ALL
      SELECT *
      FROM (
        SELECT "tags"."title"
        FROM "tags"
        ORDER BY "tags"."title"
        LIMIT 3
      )
      """
    }
    assertInlineSnapshot(
      of: Reminder.select(\.title).intersect(Tag.select(\.title)).except(RemindersList.select(\.title)).query.description, as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "reminders"
      INTERSECT
      SELECT "tags"."title"
      FROM "tags"
      EXCEPT
      SELECT "remindersLists"."title"
      FROM "remindersLists"
      """
    }
  }

  @Test func commonTables() {
    assertInlineSnapshot(of: With { Reminder.where { $0.score > 5 } } query: { high in high.order(by: \.score).limit(10) }.query.description, as: .lines) {
      """
      WITH "remindersCTE"("id", "remindersListID", "title", "notes", "isCompleted", "priority", "dueDate", "score") AS (
        SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
        FROM "reminders"
        WHERE ("reminders"."score" > 5.0)
      )
      SELECT "remindersCTE"."id", "remindersCTE"."remindersListID", "remindersCTE"."title", "remindersCTE"."notes", "remindersCTE"."isCompleted", "remindersCTE"."priority", "remindersCTE"."dueDate", "remindersCTE"."score"
      FROM "remindersCTE"
      ORDER BY "remindersCTE"."score"
      LIMIT 10
      """
    }
    assertInlineSnapshot(
      of: With { Category.where { $0.id.eq(1) } } recursiveUnion: { tree in
        Category.join(tree) { $0.parentID.eq($1.id) }.select { category, _ in category }
      } query: { tree in
        tree.order(by: \.name)
      }.query.description, as: .lines) {
      """
      WITH RECURSIVE "categoriesCTE"("id", "name", "parentID") AS (
        SELECT "categories"."id", "categories"."name", "categories"."parentID"
        FROM "categories"
        WHERE ("categories"."id" = 1)
        UNION
        SELECT "categories"."id", "categories"."name", "categories"."parentID"
        FROM "categories"
        JOIN "categoriesCTE" ON ("categories"."parentID" = "categoriesCTE"."id")
      )
      SELECT "categoriesCTE"."id", "categoriesCTE"."name", "categoriesCTE"."parentID"
      FROM "categoriesCTE"
      ORDER BY "categoriesCTE"."name"
      """
    }
    assertInlineSnapshot(
      of: With {
        Comment.where { $0.parentID.is(nil) }.select { CommentThread.Columns(id: $0.id, body: $0.body, depth: 0) }
      } recursiveUnionAll: { thread in
        Comment.join(thread) { $0.parentID.eq($1.id) }.select { CommentThread.Columns(id: $0.id, body: $0.body, depth: $1.depth + 1) }
      } query: { thread in
        thread.order { ($0.depth, $0.id) }
      }.query.description, as: .lines) {
      """
      WITH RECURSIVE "commentThreads"("id", "body", "depth") AS (
        SELECT "comments"."id" AS "id", "comments"."body" AS "body", 0 AS "depth"
        FROM "comments"
        WHERE ("comments"."parentID" IS NULL)
        UNION ALL
        SELECT "comments"."id" AS "id", "comments"."body" AS "body", ("commentThreads"."depth" + 1) AS "depth"
        FROM "comments"
        JOIN "commentThreads" ON ("comments"."parentID" = "commentThreads"."id")
      )
      SELECT "commentThreads"."id", "commentThreads"."body", "commentThreads"."depth"
      FROM "commentThreads"
      ORDER BY "commentThreads"."depth", "commentThreads"."id"
      """
    }
    assertInlineSnapshot(
      of: With { Reminder.where(\.isCompleted) } with: { RemindersList.where { $0.position > 0 } } query: { done, lists in
        done.join(lists) { $0.remindersListID.eq($1.id) }.select { ($0.title, $1.title) }
      }.query.description, as: .lines) {
      """
      WITH "remindersCTE"("id", "remindersListID", "title", "notes", "isCompleted", "priority", "dueDate", "score") AS (
        SELECT "reminders"."id", "reminders"."remindersListID", "reminders"."title", "reminders"."notes", "reminders"."isCompleted", "reminders"."priority", "reminders"."dueDate", "reminders"."score"
        FROM "reminders"
        WHERE "reminders"."isCompleted"
      ), "remindersListsCTE"("id", "title", "position") AS (
        SELECT "remindersLists"."id", "remindersLists"."title", "remindersLists"."position"
        FROM "remindersLists"
        WHERE ("remindersLists"."position" > 0)
      )
      SELECT "remindersCTE"."title", "remindersListsCTE"."title"
      FROM "remindersCTE"
      JOIN "remindersListsCTE" ON ("remindersCTE"."remindersListID" = "remindersListsCTE"."id")
      """
    }
  }
}
