import Chronicle
import Foundation
import Testing

/// The fetches SQLiteData puts on a table type itself, as its apps write them
/// in `database.read { db in … }`.
@Suite("Query builder: fetches on the table type")
struct TableFetchTests {
  @Test func fetchesOnTheType() throws {
    let fixture = try BuilderClosureAndCombinatorTests().seeded()
    try fixture.database.read { db in
      let all = try Reminder.fetchAll(db)
      let count = try Reminder.fetchCount(db)
      #expect(all.count == 4 && count == 4)
      #expect(try Reminder.fetchOne(db) == all.first)
      let cursor = try Reminder.fetchCursor(db)
      var read: [Reminder] = []
      while let reminder = try cursor.next() { read.append(reminder) }
      #expect(read == all)
      #expect(try Reminder.find(db, key: all[1].id) == all[1])
      #expect(try Reminder.fetchAll(db, keys: [all[0].id, all[2].id]).map(\.title).sorted() == [all[0].title, all[2].title].sorted())
      #expect(try Reminder.where(\.isCompleted).fetchCount(db) == 2)
      #expect(throws: (any Error).self) { try Reminder.find(db, key: UUID()) }
    }
  }
}
