import Chronicle
import ChronicleQueryTestSupport
import Foundation
import InlineSnapshotTesting
import Testing

@Selection private struct Size: Codable {
  var width = 0
  var height = 0
}

@Table("ngImages") private struct Image: Codable {
  let id: Int
  var size: Size
}

@Table("ngGalleries") private struct Gallery: Codable {
  let id: Int
  @Column(as: [Image].JSONRepresentation.self)
  var images: [Image] = []
}

/// A row holding a column group, read through JSON as upstream's
/// NestedStructJSONTests spell it: as an object, from the elements of a
/// JSON array column, and aggregated into an array. The rows are
/// upstream's; the SQL is ours: the object names the group's columns
/// beside the row's (upstream's newest nests them in an object of their
/// own), the aggregate carries each row as an array of its values, and
/// `$1` of a `json_each` join is the `JSONEach` row (`key`, `value`).
@Suite("Query builder: column groups through JSON")
struct NestedGroupJSONTests {
  let fixture: RemindersDatabase
  var database: ChronicleDatabase { fixture.database }

  init() throws {
    fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: #"CREATE TABLE "ngImages" ("id" INTEGER PRIMARY KEY, "width" INTEGER NOT NULL, "height" INTEGER NOT NULL) STRICT"#)
      try db.execute(sql: #"CREATE TABLE "ngGalleries" ("id" INTEGER PRIMARY KEY, "images" TEXT NOT NULL) STRICT"#)
      try Image.insert {
        Image(id: 1, size: Size(width: 800, height: 600))
        Image(id: 2, size: Size(width: 20, height: 10))
      }.execute(db)
      try Gallery.insert { Gallery(id: 1, images: [Image(id: 3, size: Size(width: 4, height: 3))]) }.execute(db)
    }
  }

  @Test func aRowAsAnObjectNestsItsGroup() {
    assertQuery(includeSQL: true, Image.where { $0.id.eq(1) }.select { $0.jsonObject() }, database: database) {
      """
      SELECT json_object('id', "ngImages"."id", 'width', "ngImages"."width", 'height', "ngImages"."height")
      FROM "ngImages"
      WHERE ("ngImages"."id" = 1)
      """
    } results: {
      """
      ┌─────────────────┐
      │ Image(          │
      │   id: 1,        │
      │   size: Size(   │
      │     width: 800, │
      │     height: 600 │
      │   )             │
      │ )               │
      └─────────────────┘
      """
    }
  }

  @Test func theElementsOfAnArrayColumnReadAsRows() {
    assertQuery(includeSQL: true, Gallery.join(Gallery.columns.images.jsonEach()) { _, _ in true }.select { $1 }, database: database) {
      """
      SELECT "json_each"."key", "json_each"."value"
      FROM "ngGalleries"
      JOIN json_each("ngGalleries"."images") ON 1
      """
    } results: {
      """
      ┌─────────────────┐
      │ JSONEach(       │
      │   key: 0,       │
      │   value: Image( │
      │     id: 3,      │
      │     size: Size( │
      │       width: 4, │
      │       height: 3 │
      │     )           │
      │   )             │
      │ )               │
      └─────────────────┘
      """
    }
  }

  @Test func rowsAggregatedIntoAnArray() {
    assertQuery(includeSQL: true, Image.select { $0.jsonGroupArray() }, database: database) {
      """
      SELECT json_group_array(json_array("ngImages"."id", "ngImages"."width", "ngImages"."height"))
      FROM "ngImages"
      """
    } results: {
      """
      ┌───────────────────┐
      │ [                 │
      │   [0]: Image(     │
      │     id: 1,        │
      │     size: Size(   │
      │       width: 800, │
      │       height: 600 │
      │     )             │
      │   ),              │
      │   [1]: Image(     │
      │     id: 2,        │
      │     size: Size(   │
      │       width: 20,  │
      │       height: 10  │
      │     )             │
      │   )               │
      │ ]                 │
      └───────────────────┘
      """
    }
  }
}
