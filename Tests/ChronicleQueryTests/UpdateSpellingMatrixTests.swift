import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Every assignment form of an update closure on one wide table, each as a
/// closure of a single statement on the table itself: the form in which
/// Swift 6.3.1 used to settle on the standard library's operators through
/// the write-only value form (which one it settled on changed with the
/// table's columns). This suite compiling is most of the check; the SQL
/// shows each form's reading.
@Suite("Query builder: update spellings on a wide table")
struct UpdateSpellingMatrixTests {
  @Selection
  struct Flags: Equatable {
    var isOutOfStock = false
    var isOnBackOrder = false
  }

  enum Level: Int, QueryBindable { case low = 1, medium, high }

  @Table("gadgets")
  struct Gadget: Equatable {
    let id: Int
    var title = ""
    var isDone = false
    var flag = false
    var notes: String?
    var count = 0
    var optionalCount: Int?
    var score = 0.0
    var level: Level?
    var dueDate: Date?
    var flags = Flags()
  }

  @Test func eachFormOnATableOfElevenColumns() {
    let statements: [any QueryStatement] = [
      Gadget.update { $0.isDone = !$0.isDone },
      Gadget.update { $0.isDone = !$0.isDone || $0.flag },
      Gadget.update { $0.isDone = $0.count > 3 },
      Gadget.update { $0.isDone.toggle() },
      Gadget.update { $0.count += 1 },
      Gadget.update { $0.count -= 1 },
      Gadget.update { $0.count *= 2 },
      Gadget.update { $0.count /= 2 },
      Gadget.update { $0.count &= 1 },
      Gadget.update { $0.count |= 1 },
      Gadget.update { $0.count <<= 1 },
      Gadget.update { $0.count += $0.count },
      Gadget.update { $0.count = -$0.count },
      Gadget.update { $0.score += 1.5 },
      Gadget.update { $0.score /= 2 },
      Gadget.update { $0.title += "!" },
      Gadget.update { $0.notes = "x" },
      Gadget.update { $0.notes = nil },
      Gadget.update { $0.optionalCount = 1 },
      Gadget.update { $0.level = .high },
      Gadget.update { $0.dueDate = Date(timeIntervalSince1970: 0) },
      Gadget.update { $0.notes = Case($0.isDone).when(true, then: "done") },
      Gadget.update { $0.flags = Flags(isOutOfStock: true, isOnBackOrder: false) },
      Gadget.update { $0.flags.isOutOfStock = true },
      Gadget.update { $0.flags.isOutOfStock = !$0.flags.isOutOfStock },
      Gadget.update { $0.flags.isOnBackOrder.toggle() },
      Gadget.update { $0.isDone = $0.flags.isOutOfStock },
      Gadget.update {
        $0.count += 1
        $0.isDone = !$0.isDone
        $0.title += "!"
        $0.flags.isOutOfStock = true
      },
    ]
    assertInlineSnapshot(of: statements.map(\.query.description).joined(separator: "\n"), as: .lines) {
      """
      UPDATE "gadgets"
      SET "isDone" = NOT ("gadgets"."isDone")
      UPDATE "gadgets"
      SET "isDone" = (NOT ("gadgets"."isDone") OR "gadgets"."flag")
      UPDATE "gadgets"
      SET "isDone" = ("gadgets"."count" > 3)
      UPDATE "gadgets"
      SET "isDone" = NOT ("gadgets"."isDone")
      UPDATE "gadgets"
      SET "count" = ("gadgets"."count" + 1)
      UPDATE "gadgets"
      SET "count" = ("gadgets"."count" - 1)
      UPDATE "gadgets"
      SET "count" = ("gadgets"."count" * 2)
      UPDATE "gadgets"
      SET "count" = ("gadgets"."count" / 2)
      UPDATE "gadgets"
      SET "count" = ("gadgets"."count" & 1)
      UPDATE "gadgets"
      SET "count" = ("gadgets"."count" | 1)
      UPDATE "gadgets"
      SET "count" = ("gadgets"."count" << 1)
      UPDATE "gadgets"
      SET "count" = ("gadgets"."count" + "gadgets"."count")
      UPDATE "gadgets"
      SET "count" = -("gadgets"."count")
      UPDATE "gadgets"
      SET "score" = ("gadgets"."score" + 1.5)
      UPDATE "gadgets"
      SET "score" = ("gadgets"."score" / 2.0)
      UPDATE "gadgets"
      SET "title" = ("gadgets"."title" || '!')
      UPDATE "gadgets"
      SET "notes" = 'x'
      UPDATE "gadgets"
      SET "notes" = NULL
      UPDATE "gadgets"
      SET "optionalCount" = 1
      UPDATE "gadgets"
      SET "level" = 3
      UPDATE "gadgets"
      SET "dueDate" = '1970-01-01 00:00:00.000'
      UPDATE "gadgets"
      SET "notes" = CASE "gadgets"."isDone" WHEN 1 THEN 'done' END
      UPDATE "gadgets"
      SET "isOutOfStock" = 1, "isOnBackOrder" = 0
      UPDATE "gadgets"
      SET "isOutOfStock" = 1
      UPDATE "gadgets"
      SET "isOutOfStock" = NOT ("gadgets"."isOutOfStock")
      UPDATE "gadgets"
      SET "isOnBackOrder" = NOT ("gadgets"."isOnBackOrder")
      UPDATE "gadgets"
      SET "isDone" = "gadgets"."isOutOfStock"
      UPDATE "gadgets"
      SET "count" = ("gadgets"."count" + 1), "isDone" = NOT ("gadgets"."isDone"), "title" = ("gadgets"."title" || '!'), "isOutOfStock" = 1
      """
    }
  }
}
