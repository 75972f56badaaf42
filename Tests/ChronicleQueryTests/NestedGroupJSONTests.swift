import Chronicle
import ChronicleQueryTestSupport
import Foundation
import InlineSnapshotTesting
import Testing

@Selection private struct Size: Codable, Equatable {
  var width = 0
  var height = 0
}

@Table("ngImages") private struct Image: Codable, Equatable {
  let id: Int
  var size: Size
  var isPublic = false
  @Column(as: [String].JSONRepresentation.self)
  var tags: [String] = []
}

@Table("ngGalleries") private struct Gallery: Codable {
  let id: Int
  @Column(as: [Image].JSONRepresentation.self)
  var images: [Image] = []
}

/// A row holding a column group, read through JSON as upstream's
/// NestedStructJSONTests spell it: as an object, from the elements of a
/// JSON array column, and aggregated into an array. The rows are
/// upstream's, and so is the object's SQL (the group an object of its own,
/// as upstream's newest writes it); the aggregate carries each row as an
/// array of its values, and `$1` of a `json_each` join is the `JSONEach`
/// row (`key`, `value`).
@Suite("Query builder: column groups through JSON")
struct NestedGroupJSONTests {
  let fixture: RemindersDatabase
  var database: ChronicleDatabase { fixture.database }

  init() throws {
    fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: #"""
        CREATE TABLE "ngImages" (
          "id" INTEGER PRIMARY KEY, "width" INTEGER NOT NULL, "height" INTEGER NOT NULL,
          "isPublic" INTEGER NOT NULL DEFAULT 0, "tags" TEXT NOT NULL DEFAULT '[]'
        ) STRICT
        """#)
      try db.execute(sql: #"CREATE TABLE "ngGalleries" ("id" INTEGER PRIMARY KEY, "images" TEXT NOT NULL) STRICT"#)
      try Image.insert {
        Image(id: 1, size: Size(width: 800, height: 600), isPublic: true, tags: ["sea", "sky"])
        Image(id: 2, size: Size(width: 20, height: 10))
      }.execute(db)
      try Gallery.insert { Gallery(id: 1, images: [Image(id: 3, size: Size(width: 4, height: 3))]) }.execute(db)
    }
  }

  @Test func aRowAsAnObjectNestsItsGroup() {
    assertQuery(includeSQL: true, Image.where { $0.id.eq(1) }.select { $0.jsonObject() }, database: database) {
      """
      SELECT json_object('id', json_quote("ngImages"."id"), 'size', json_object('width', json_quote("ngImages"."width"), 'height', json_quote("ngImages"."height")), 'isPublic', json(CASE "ngImages"."isPublic" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END), 'tags', json("ngImages"."tags"))
      FROM "ngImages"
      WHERE ("ngImages"."id" = 1)
      """
    } results: {
      """
      ┌───────────────────┐
      │ Image(            │
      │   id: 1,          │
      │   size: Size(     │
      │     width: 800,   │
      │     height: 600   │
      │   ),              │
      │   isPublic: true, │
      │   tags: [         │
      │     [0]: "sea",   │
      │     [1]: "sky"    │
      │   ]               │
      │ )                 │
      └───────────────────┘
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
      ┌──────────────────────┐
      │ JSONEach(            │
      │   key: 0,            │
      │   value: Image(      │
      │     id: 3,           │
      │     size: Size(      │
      │       width: 4,      │
      │       height: 3      │
      │     ),               │
      │     isPublic: false, │
      │     tags: []         │
      │   )                  │
      │ )                    │
      └──────────────────────┘
      """
    }
  }

  @Test func rowsAggregatedIntoAnArray() {
    assertQuery(includeSQL: true, Image.select { $0.jsonGroupArray() }, database: database) {
      """
      SELECT json_group_array(json_object('id', json_quote("ngImages"."id"), 'size', json_object('width', json_quote("ngImages"."width"), 'height', json_quote("ngImages"."height")), 'isPublic', json(CASE "ngImages"."isPublic" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END), 'tags', json("ngImages"."tags")))
      FROM "ngImages"
      """
    } results: {
      """
      ┌──────────────────────┐
      │ [                    │
      │   [0]: Image(        │
      │     id: 1,           │
      │     size: Size(      │
      │       width: 800,    │
      │       height: 600    │
      │     ),               │
      │     isPublic: true,  │
      │     tags: [          │
      │       [0]: "sea",    │
      │       [1]: "sky"     │
      │     ]                │
      │   ),                 │
      │   [1]: Image(        │
      │     id: 2,           │
      │     size: Size(      │
      │       width: 20,     │
      │       height: 10     │
      │     ),               │
      │     isPublic: false, │
      │     tags: []         │
      │   )                  │
      │ ]                    │
      └──────────────────────┘
      """
    }
  }

  /// The object is the row as `Codable` writes it (a group nested, a
  /// boolean as `true`, a JSON column as its JSON), so a plain `JSONDecoder`
  /// reads it too, and it reads back as the row.
  @Test func theObjectIsTheRowsCodableShape() throws {
    let text = Image.find(1).select { SQLQueryExpression<String>($0.jsonObject().queryFragment) }
    let objects = Image.find(1).select { $0.jsonObject() }
    let (json, decoded) = try database.read { db in (try text.fetchOne(db)!, try objects.fetchOne(db)!) }
    #expect(json == #"{"id":1,"size":{"width":800,"height":600},"isPublic":true,"tags":["sea","sky"]}"#)
    let expected = Image(id: 1, size: Size(width: 800, height: 600), isPublic: true, tags: ["sea", "sky"])
    #expect(try JSONDecoder().decode(Image.self, from: Data(json.utf8)) == expected)
    #expect(decoded == expected)
  }
}
