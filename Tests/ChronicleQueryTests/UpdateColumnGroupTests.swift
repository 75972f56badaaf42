import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// A column group's own columns assigned in an update closure, as upstream
/// spells it: `$0.status.isOutOfStock = true`, a member read into another,
/// toggled in place, set from an upsert's excluded row. Each with its SQL
/// and the rows SQLite holds after it.
@Suite("Query builder: column groups in updates")
struct UpdateColumnGroupTests {
  @Selection
  struct StockStatus: Equatable {
    var isOutOfStock = false
    var isOnBackOrder = false
  }

  @Table("stockItems")
  struct StockItem: Equatable {
    let id: Int
    var title = ""
    var quantity = 0
    var status = StockStatus()
  }

  let fixture = BuilderClosureAndCombinatorTests()

  func database() throws -> RemindersDatabase {
    let database = try RemindersDatabase()
    try database.database.write { db in
      try db.execute(sql: """
        CREATE TABLE "stockItems" (
          "id" INTEGER PRIMARY KEY,
          "title" TEXT NOT NULL DEFAULT '',
          "quantity" INTEGER NOT NULL DEFAULT 0,
          "isOutOfStock" INTEGER NOT NULL DEFAULT 0,
          "isOnBackOrder" INTEGER NOT NULL DEFAULT 0
        ) STRICT
        """)
      try StockItem.insert {
        StockItem(id: 1, title: "Phone", quantity: 0)
        StockItem(id: 2, title: "Case", quantity: 3, status: StockStatus(isOutOfStock: false, isOnBackOrder: true))
      }.execute(db)
      try Note.insert {
        Note(id: 1, body: "first", timestamps: Timestamps(createdAt: Date(timeIntervalSince1970: 0), updatedAt: nil))
        Note(id: 2, body: "second", timestamps: Timestamps(createdAt: Date(timeIntervalSince1970: 60), updatedAt: Date(timeIntervalSince1970: 120)))
      }.execute(db)
    }
    return database
  }

  @Test func membersAssignedValuesAndExpressions() throws {
    let fixture = try database()
    let statements: [any QueryStatement] = [
      StockItem.where { $0.quantity == 0 }.update { $0.status.isOutOfStock = true },
      StockItem.find(2).update {
        $0.status.isOutOfStock = !$0.status.isOnBackOrder
        $0.status.isOnBackOrder.toggle()
        $0.quantity += 1
      },
      StockItem.order(by: \.id),
      Note.find(1).update { $0.timestamps.updatedAt = Date(timeIntervalSince1970: 300) },
      Note.find(2).update {
        $0.timestamps.updatedAt = nil
        $0.timestamps.createdAt = $0.timestamps.createdAt
        $0.body += "!"
      },
      Note.order(by: \.id),
    ]
    assertInlineSnapshot(of: try fixture.database.sqlAndRows(of: statements), as: .lines) {
      """
      UPDATE "stockItems"
      SET "isOutOfStock" = 1
      WHERE ("stockItems"."quantity" = 0)
      UPDATE "stockItems"
      SET "isOutOfStock" = NOT ("stockItems"."isOnBackOrder"), "isOnBackOrder" = NOT ("stockItems"."isOnBackOrder"), "quantity" = ("stockItems"."quantity" + 1)
      WHERE ("stockItems"."id" IN (2))
      SELECT "stockItems"."id", "stockItems"."title", "stockItems"."quantity", "stockItems"."isOutOfStock", "stockItems"."isOnBackOrder"
      FROM "stockItems"
      ORDER BY "stockItems"."id"
        StockItem(id: 1, title: "Phone", quantity: 0, status: ChronicleQueryTests.UpdateColumnGroupTests.StockStatus(isOutOfStock: true, isOnBackOrder: false))
        StockItem(id: 2, title: "Case", quantity: 4, status: ChronicleQueryTests.UpdateColumnGroupTests.StockStatus(isOutOfStock: false, isOnBackOrder: false))
      UPDATE "notes"
      SET "updatedAt" = '1970-01-01 00:05:00.000'
      WHERE ("notes"."id" IN (1))
      UPDATE "notes"
      SET "updatedAt" = NULL, "createdAt" = "notes"."createdAt", "body" = ("notes"."body" || '!')
      WHERE ("notes"."id" IN (2))
      SELECT "notes"."id", "notes"."body", "notes"."createdAt", "notes"."updatedAt"
      FROM "notes"
      ORDER BY "notes"."id"
        Note(id: 1, body: "first", timestamps: ChronicleQueryTests.Timestamps(createdAt: 1970-01-01 00:00:00 +0000, updatedAt: Optional(1970-01-01 00:05:00 +0000)))
        Note(id: 2, body: "second!", timestamps: ChronicleQueryTests.Timestamps(createdAt: 1970-01-01 00:01:00 +0000, updatedAt: nil))
      """
    }
  }

  @Test func aMemberReadAfterItIsAssignedReadsTheAssignment() throws {
    let update = StockItem.update {
      $0.status.isOutOfStock = true
      $0.status.isOnBackOrder = $0.status.isOutOfStock
    }
    assertInlineSnapshot(of: update.query.description, as: .lines) {
      """
      UPDATE "stockItems"
      SET "isOutOfStock" = 1, "isOnBackOrder" = 1
      """
    }
  }

  @Test func aMemberSetFromTheExcludedRow() throws {
    let fixture = try database()
    let statements: [any QueryStatement] = [
      StockItem.insert {
        StockItem(id: 1, title: "Phone", quantity: 5, status: StockStatus(isOutOfStock: false, isOnBackOrder: true))
      } onConflict: { $0.id } doUpdate: {
        $0.status.isOnBackOrder = $1.status.isOnBackOrder
        $0.quantity = $1.quantity
      },
      StockItem.order(by: \.id),
    ]
    assertInlineSnapshot(of: try fixture.database.sqlAndRows(of: statements), as: .lines) {
      """
      INSERT INTO "stockItems"
      ("id", "title", "quantity", "isOutOfStock", "isOnBackOrder")
      VALUES
      (1, 'Phone', 5, 0, 1)
      ON CONFLICT ("id")
      DO UPDATE SET "isOnBackOrder" = "excluded"."isOnBackOrder", "quantity" = "excluded"."quantity"
      SELECT "stockItems"."id", "stockItems"."title", "stockItems"."quantity", "stockItems"."isOutOfStock", "stockItems"."isOnBackOrder"
      FROM "stockItems"
      ORDER BY "stockItems"."id"
        StockItem(id: 1, title: "Phone", quantity: 5, status: ChronicleQueryTests.UpdateColumnGroupTests.StockStatus(isOutOfStock: false, isOnBackOrder: true))
        StockItem(id: 2, title: "Case", quantity: 3, status: ChronicleQueryTests.UpdateColumnGroupTests.StockStatus(isOutOfStock: false, isOnBackOrder: true))
      """
    }
  }

  @Test func aWholeGroupAndAMemberInOneUpdate() throws {
    let fixture = try database()
    let statements: [any QueryStatement] = [
      StockItem.find(1).update {
        $0.status = StockStatus(isOutOfStock: true, isOnBackOrder: true)
        $0.status.isOnBackOrder = false
      },
      StockItem.order(by: \.id),
    ]
    assertInlineSnapshot(of: try fixture.database.sqlAndRows(of: statements), as: .lines) {
      """
      UPDATE "stockItems"
      SET "isOutOfStock" = 1, "isOnBackOrder" = 0
      WHERE ("stockItems"."id" IN (1))
      SELECT "stockItems"."id", "stockItems"."title", "stockItems"."quantity", "stockItems"."isOutOfStock", "stockItems"."isOnBackOrder"
      FROM "stockItems"
      ORDER BY "stockItems"."id"
        StockItem(id: 1, title: "Phone", quantity: 0, status: ChronicleQueryTests.UpdateColumnGroupTests.StockStatus(isOutOfStock: true, isOnBackOrder: false))
        StockItem(id: 2, title: "Case", quantity: 3, status: ChronicleQueryTests.UpdateColumnGroupTests.StockStatus(isOutOfStock: false, isOnBackOrder: true))
      """
    }
  }
}
