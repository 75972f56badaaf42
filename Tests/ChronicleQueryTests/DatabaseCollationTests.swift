import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

import ChronicleTestSupport

@DatabaseCollation
func reversed(_ lhs: String, _ rhs: String) -> CollationOrder {
  CollationOrder(rhs, lhs)
}

@DatabaseCollation
func byLength(_ lhs: String, _ rhs: String) -> CollationOrder {
  let order = CollationOrder(lhs.count, rhs.count)
  return order == .same ? CollationOrder(lhs, rhs) : order
}

enum TextCollations {
  @DatabaseCollation("case_insensitive")
  static func caseInsensitive(left lhs: String, right rhs: String) -> CollationOrder {
    CollationOrder(lhs.lowercased(), rhs.lowercased())
  }
}

extension Collation where Self == NamedCollation {
  fileprivate static var caseInsensitive: Self { NamedCollation(TextCollations.$caseInsensitive) }
}

/// `@DatabaseCollation`: collating sequences written in Swift, registered
/// with GRDB's `db.add(collation:)` and named in queries, with the SQL and
/// the rows SQLite orders by them.
@Suite("@DatabaseCollation: Swift collating sequences")
struct DatabaseCollationTests {
  let directory: TemporaryDirectory
  let database: ChronicleDatabase

  init() throws {
    directory = try TemporaryDirectory()
    var configuration = ChronicleConfiguration()
    configuration.database.prepareDatabase { db in
      db.add(collation: $reversed)
      db.add(collation: $byLength)
      db.add(collation: TextCollations.$caseInsensitive)
    }
    database = try Chronicle.open(path: directory.path("app.sqlite"), configuration: configuration)
    let home = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    let work = UUID(uuidString: "00000000-0000-0000-0000-000000000002")!
    try database.write { db in
      try db.execute(sql: remindersSchema)
      try RemindersList.insert {
        RemindersList(id: home, title: "Personal", position: 1)
        RemindersList(id: work, title: "Business", position: 2)
        RemindersList(id: UUID(uuidString: "00000000-0000-0000-0000-000000000003")!, title: "Family", position: 3)
      }.execute(db)
      try Reminder.insert {
        Reminder.Draft(remindersListID: home, title: "Take a walk")
        Reminder.Draft(remindersListID: home, title: "Send weekly emails")
        Reminder.Draft(remindersListID: work, title: "Take out trash")
      }.execute(db)
    }
  }

  func run(_ query: some QueryStatement) throws -> String { try database.sqlAndRows(query) }

  @Test func orderBySwiftCollations() throws {
    assertInlineSnapshot(of: try run(RemindersList.select(\.title).order { $0.title.collate($reversed) }), as: .lines) {
      """
      SELECT "remindersLists"."title"
      FROM "remindersLists"
      ORDER BY "remindersLists"."title" COLLATE "reversed"
      Personal
      Family
      Business
      """
    }
    assertInlineSnapshot(of: try run(RemindersList.select(\.title).order { $0.title.collate($byLength) }), as: .lines) {
      """
      SELECT "remindersLists"."title"
      FROM "remindersLists"
      ORDER BY "remindersLists"."title" COLLATE "byLength"
      Family
      Business
      Personal
      """
    }
  }

  @Test func equalityUnderANamedSwiftCollation() throws {
    assertInlineSnapshot(
      of: try run(RemindersList.where { $0.title.collate(.caseInsensitive).eq("PERSONAL") }.select(\.title)), as: .lines
    ) {
      """
      SELECT "remindersLists"."title"
      FROM "remindersLists"
      WHERE ("remindersLists"."title" COLLATE "case_insensitive" = 'PERSONAL')
      Personal
      """
    }
  }

  /// The "Family" list has no reminders: its NULL title sorts first.
  @Test func optionalTextOnTheMissingSideOfAJoin() throws {
    let query = RemindersList.leftJoin(Reminder.all) { $0.id.eq($1.remindersListID) }
      .order { $1.title.collate($reversed) }
      .select { $1.title }
      .limit(3)
    assertInlineSnapshot(of: try run(query), as: .lines) {
      """
      SELECT "reminders"."title"
      FROM "remindersLists"
      LEFT JOIN "reminders" ON ("remindersLists"."id" = "reminders"."remindersListID")
      ORDER BY "reminders"."title" COLLATE "reversed"
      LIMIT 3
      nil
      Optional("Take out trash")
      Optional("Take a walk")
      """
    }
  }

  /// An instance method: the collation calls it on the instance `$order` was read from.
  final class Sorter: Sendable {
    let shortestFirst: Bool
    init(shortestFirst: Bool) { self.shortestFirst = shortestFirst }

    @DatabaseCollation("sorter_order")
    func order(_ lhs: String, _ rhs: String) -> CollationOrder {
      shortestFirst ? CollationOrder(lhs.count, rhs.count) : CollationOrder(rhs.count, lhs.count)
    }
  }

  @Test func instanceMethodsCollateWithTheirInstance() throws {
    for shortestFirst in [true, false] {
      let sorter = Sorter(shortestFirst: shortestFirst)
      var configuration = ChronicleConfiguration()
      configuration.database.prepareDatabase { db in db.add(collation: sorter.$order) }
      let sorted = try Chronicle.open(path: directory.path("sorted-\(shortestFirst).sqlite"), configuration: configuration)
      try sorted.write { db in
        try db.execute(sql: remindersSchema)
        try RemindersList.insert {
          RemindersList(id: UUID(), title: "Groceries", position: 1)
          RemindersList(id: UUID(), title: "Gym", position: 2)
          RemindersList(id: UUID(), title: "Garden", position: 3)
        }.execute(db)
      }
      let titles = try sorted.read { db in
        try RemindersList.select(\.title).order { $0.title.collate(sorter.$order) }.fetchAll(db)
      }
      #expect(titles == (shortestFirst ? ["Gym", "Garden", "Groceries"] : ["Groceries", "Garden", "Gym"]))
    }
  }

  @Test func aCollationNotRegisteredIsNamedBySQLite() throws {
    var configuration = ChronicleConfiguration()
    configuration.database.prepareDatabase { _ in }
    let bare = try Chronicle.open(path: directory.path("bare.sqlite"), configuration: configuration)
    try bare.write { db in try db.execute(sql: remindersSchema) }
    #expect {
      try bare.read { db in try RemindersList.order { $0.title.collate($reversed) }.fetchAll(db) }
    } throws: { error in
      "\(error)".contains("no such collation sequence: reversed")
    }
  }
}
