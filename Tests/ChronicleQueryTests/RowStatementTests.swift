import Chronicle
import ChronicleQueryTestSupport
import Foundation
import InlineSnapshotTesting
import Testing

@Selection private struct Handling {
  var isFragile = false
  var isPriority = false
}

@Table("parcels") private struct Parcel {
  var label = ""
  var weight = 0
  var handling = Handling()
}

@Table("labels") private struct Label {
  var text = ""
  @Column(generated: .virtual)
  let length: Int
}

@Selection private struct Stamps {
  var createdAt = 0
  var deletedAt: Int?
  @Column(generated: .virtual)
  let isDeleted: Bool
}

@Table("stamped") private struct Stamped {
  var title = ""
  var stamps: Stamps
}

@Table("shipments") private struct Shipment {
  var parcel: Parcel?
  var shippedAt: Date
}

/// A table's row given in Swift used as a statement (`Values(row)`, and
/// `assertQuery(row)` as upstream's tests write it): its values selected
/// under its column names, a column group's columns one by one, an absent
/// optional row as a NULL for each column, read back as the row.
@Suite("Query builder: a row given in Swift as a statement")
struct RowStatementTests {
  let fixture = try! RemindersDatabase()
  var database: ChronicleDatabase { fixture.database }

  @Test func aRowSelectsItsValuesUnderItsColumnNames() throws {
    assertQuery(includeSQL: true, Parcel(label: "Lamp", weight: 3, handling: Handling(isFragile: true)), database: database) {
      """
      SELECT 'Lamp' AS "label", 3 AS "weight", 1 AS "isFragile", 0 AS "isPriority"
      """
    } results: {
      """
      ┌───────────────────────┐
      │ Parcel(               │
      │   label: "Lamp",      │
      │   weight: 3,          │
      │   handling: Handling( │
      │     isFragile: true,  │
      │     isPriority: false │
      │   )                   │
      │ )                     │
      └───────────────────────┘
      """
    }
  }

  /// Upstream reads its row of NULLs back as the row's defaults (a FIXME in
  /// its NestedTests); here it reads back as nil.
  @Test func anAbsentRowIsANullForEachColumn() throws {
    assertQuery(includeSQL: true, Parcel?.none, database: database) {
      """
      SELECT NULL AS "label", NULL AS "weight", NULL AS "isFragile", NULL AS "isPriority"
      """
    } results: {
      """
      ┌─────┐
      │ nil │
      └─────┘
      """
    }
    assertQuery(includeSQL: true, Parcel?(Parcel(label: "Mug")), database: database) {
      """
      SELECT 'Mug' AS "label", 0 AS "weight", 0 AS "isFragile", 0 AS "isPriority"
      """
    } results: {
      """
      ┌───────────────────────┐
      │ Parcel(               │
      │   label: "Mug",       │
      │   weight: 0,          │
      │   handling: Handling( │
      │     isFragile: false, │
      │     isPriority: false │
      │   )                   │
      │ )                     │
      └───────────────────────┘
      """
    }
  }

  @Test func aRowHoldingAnAbsentRow() throws {
    let epoch = Date(timeIntervalSinceReferenceDate: 0)
    assertQuery(includeSQL: true, Shipment(parcel: nil, shippedAt: epoch), database: database) {
      """
      SELECT NULL AS "label", NULL AS "weight", NULL AS "isFragile", NULL AS "isPriority", '2001-01-01 00:00:00.000' AS "shippedAt"
      """
    } results: {
      """
      ┌─────────────────────────────────────────────┐
      │ Shipment(                                   │
      │   parcel: nil,                              │
      │   shippedAt: Date(2001-01-01T00:00:00.000Z) │
      │ )                                           │
      └─────────────────────────────────────────────┘
      """
    }
  }

  /// An enum table's row: the case's columns, NULL for the others.
  @Test func anEnumTablesRow() throws {
    let rows = try database.read { db in try Values(ETPost.note("Goodnight moon")).fetchAll(db) }
    #expect(rows == [.note("Goodnight moon")])
    #expect(Values(ETPost.note("Goodnight moon")).query.description == #"SELECT NULL AS "url", 'Goodnight moon' AS "note""#)
  }

  /// The statement binds its values; its description shows them in place.
  @Test func valuesAreBound() {
    let statement = Values(Parcel(label: "it's", weight: 1))
    #expect(statement.query.sql == #"SELECT ? AS "label", ? AS "weight", ? AS "isFragile", ? AS "isPriority""#)
    #expect(statement.query.bindings.count == 4)
  }

  /// A generated column is selected with the others (an insert leaves it
  /// out), so the row reads back whole.
  @Test func aGeneratedColumnIsSelectedToo() throws {
    let statement = Values(Label(text: "ab", length: 2))
    #expect(statement.query.description == #"SELECT 'ab' AS "text", 2 AS "length""#)
    let row = try database.read { db in try statement.fetchOne(db) }
    #expect(row?.text == "ab" && row?.length == 2)
  }

  /// A generated column inside a column group is selected too.
  @Test func aGeneratedColumnInAGroup() throws {
    let statement = Values(Stamped(title: "a", stamps: Stamps(createdAt: 1, deletedAt: 2, isDeleted: true)))
    #expect(statement.query.description == #"SELECT 'a' AS "title", 1 AS "createdAt", 2 AS "deletedAt", 1 AS "isDeleted""#)
    let row = try database.read { db in try statement.fetchOne(db) }
    #expect(row?.stamps.isDeleted == true && row?.stamps.deletedAt == 2)
    let optional = Values(Stamped?(Stamped(title: "b", stamps: Stamps(isDeleted: false))))
    #expect(optional.query.description == #"SELECT 'b' AS "title", 0 AS "createdAt", NULL AS "deletedAt", 0 AS "isDeleted""#)
    #expect(try database.read { db in try optional.fetchOne(db) }??.title == "b")
  }
}
