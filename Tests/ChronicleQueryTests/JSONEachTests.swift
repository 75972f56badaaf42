import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

struct JECoordinate: Codable, Equatable, Sendable {
  var latitude: Double
  var longitude: Double
  var label: String
}

@Table("jeTrips") struct JETrip {
  let id: Int
  var title: String
  @Column(as: [JECoordinate].JSONRepresentation.self)
  var geofence: [JECoordinate] = []
}

@Table("jeTaggedItems") struct JETaggedItem {
  let id: Int
  var title: String
  @Column(as: [String].JSONRepresentation.self)
  var tags: [String]
}

struct JEStock: Codable, Sendable { var onHand: Int }

@Table("jeProducts") struct JEProduct {
  let id: Int
  @Column(as: [String: JEStock].JSONRepresentation.self)
  var inventory: [String: JEStock]
}

struct JEWriter: Codable, Sendable {
  var tags: [String] = []
  var scores: [String: Int] = [:]
}

@Table("jePosts") struct JEPost {
  let id: Int
  @Column(as: [String: Int].JSONRepresentation.self)
  var reactions: [String: Int] = [:]
  @Column(as: JEWriter.JSONRepresentation.self)
  var writer: JEWriter
}

@Table("jeRoutes") struct JERoute {
  let id: Int
  @Column(as: [JECoordinate]?.JSONRepresentation.self)
  var waypoints: [JECoordinate]?
}

struct JELink: Codable, Sendable { var homepage: String; var isActive: Bool }
struct JEAuthor: Codable, Sendable {
  var name: String
  var links: [JELink]
  var home: JELink? { links.first }
}

@Table("jeProfiles") struct JEProfile {
  let id: Int
  @Column(as: JEAuthor.JSONRepresentation.self)
  var author: JEAuthor
}

/// `json_each` over JSON columns as upstream spells it: `jsonEach()` as a
/// subquery (exists, count, select, order, limit) and joined as a table,
/// `jsonExtract(\.member)` on JSON values.
@Suite("Query builder: jsonEach and jsonExtract")
struct JSONEachTests {
  let fixture: RemindersDatabase

  init() throws {
    fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: """
        CREATE TABLE jeTrips (id INTEGER PRIMARY KEY, title TEXT NOT NULL, geofence TEXT NOT NULL) STRICT;
        CREATE TABLE jeTaggedItems (id INTEGER PRIMARY KEY, title TEXT NOT NULL, tags TEXT NOT NULL) STRICT;
        CREATE TABLE jeProducts (id INTEGER PRIMARY KEY, inventory TEXT NOT NULL) STRICT;
        CREATE TABLE jePosts (id INTEGER PRIMARY KEY, reactions TEXT NOT NULL, writer TEXT NOT NULL) STRICT;
        CREATE TABLE jeRoutes (id INTEGER PRIMARY KEY, waypoints TEXT) STRICT;
        CREATE TABLE jeProfiles (id INTEGER PRIMARY KEY, author TEXT NOT NULL) STRICT;
        """)
      let home = JECoordinate(latitude: 40.7, longitude: -74.0, label: "home")
      try JETrip.insert {
        JETrip.Draft(title: "Northern", geofence: [home, JECoordinate(latitude: 51.5, longitude: -0.1, label: "away")])
        JETrip.Draft(title: "Mixed", geofence: [home, JECoordinate(latitude: -33.9, longitude: 151.2, label: "away")])
        JETrip.Draft(title: "Empty")
      }.execute(db)
    }
  }

  @Test func anArraysElementsAsASubquery() throws {
    let output = try fixture.database.sqlAndRows(of: [
      JETrip.where { !$0.geofence.jsonEach().where { $0.value.jsonExtract(\.latitude) < 0 }.exists() }.select(\.title),
      JETrip.select { ($0.title, $0.geofence.jsonEach().count()) },
      JETrip.select { ($0.title, $0.geofence.jsonEach().select { $0.value.jsonExtract(\.latitude).max() }) },
      JETrip.where { $0.geofence.jsonArrayLength() > 0 }.select {
        ($0.title, $0.geofence.jsonEach().select { $0.value.jsonExtract(\.label) }.order { $0.value.jsonExtract(\.latitude).desc() }.limit(1))
      },
      JETrip.where { $0.geofence.jsonArrayLength() > 0 }.select {
        ($0.title, $0.geofence.jsonEach().where { $0.key.eq(0) }.select { $0.value.jsonExtract(\.label) })
      },
    ])
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT "jeTrips"."title"
      FROM "jeTrips"
      WHERE NOT ((EXISTS (
        SELECT "json_each"."key", "json_each"."value"
        FROM json_each("jeTrips"."geofence")
        WHERE (json_extract("json_each"."value", '$."latitude"') < 0.0)
      )))
        Northern
        Empty
      SELECT "jeTrips"."title", (
        SELECT count(*)
        FROM json_each("jeTrips"."geofence")
      )
      FROM "jeTrips"
        ("Northern", 2)
        ("Mixed", 2)
        ("Empty", 0)
      SELECT "jeTrips"."title", (
        SELECT max(json_extract("json_each"."value", '$."latitude"'))
        FROM json_each("jeTrips"."geofence")
      )
      FROM "jeTrips"
        ("Northern", Optional(51.5))
        ("Mixed", Optional(40.7))
        ("Empty", nil)
      SELECT "jeTrips"."title", (
        SELECT json_extract("json_each"."value", '$."label"')
        FROM json_each("jeTrips"."geofence")
        ORDER BY json_extract("json_each"."value", '$."latitude"') DESC
        LIMIT 1
      )
      FROM "jeTrips"
      WHERE (json_array_length("jeTrips"."geofence") > 0)
        ("Northern", "away")
        ("Mixed", "home")
      SELECT "jeTrips"."title", (
        SELECT json_extract("json_each"."value", '$."label"')
        FROM json_each("jeTrips"."geofence")
        WHERE ("json_each"."key" = 0)
      )
      FROM "jeTrips"
      WHERE (json_array_length("jeTrips"."geofence") > 0)
        ("Northern", "home")
        ("Mixed", "home")
      """
    }
  }

  @Test func anArraysElementsJoined() throws {
    let output = try fixture.database.sqlAndRows(of: [
      JETrip.join(JETrip.columns.geofence.jsonEach()) { _, _ in true }.select { ($0.title, $1.value.jsonExtract(\.label)) },
      JETrip.leftJoin(JETrip.columns.geofence.jsonEach()) { _, _ in true }.select { ($0.title, $1.value.jsonExtract(\.label)) },
      JETrip.where { $0.title.eq("Northern") }.join(JETrip.columns.geofence.jsonEach()) { _, _ in true }.select { $1 },
    ])
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT "jeTrips"."title", json_extract("json_each"."value", '$."label"')
      FROM "jeTrips"
      JOIN json_each("jeTrips"."geofence") ON 1
        ("Northern", "home")
        ("Northern", "away")
        ("Mixed", "home")
        ("Mixed", "away")
      SELECT "jeTrips"."title", json_extract("json_each"."value", '$."label"')
      FROM "jeTrips"
      LEFT JOIN json_each("jeTrips"."geofence") ON 1
        ("Northern", Optional("home"))
        ("Northern", Optional("away"))
        ("Mixed", Optional("home"))
        ("Mixed", Optional("away"))
        ("Empty", nil)
      SELECT "json_each"."key", "json_each"."value"
      FROM "jeTrips"
      JOIN json_each("jeTrips"."geofence") ON 1
      WHERE ("jeTrips"."title" = 'Northern')
        JSONEach<Int, CodableJSONRepresentation<JECoordinate>>(key: 0, value: ChronicleQueryTests.JECoordinate(latitude: 40.7, longitude: -74.0, label: "home"))
        JSONEach<Int, CodableJSONRepresentation<JECoordinate>>(key: 1, value: ChronicleQueryTests.JECoordinate(latitude: 51.5, longitude: -0.1, label: "away"))
      """
    }
  }

  @Test func scalarsDictionariesPathsAndNull() throws {
    try fixture.database.write { db in
      try JETaggedItem.insert {
        JETaggedItem.Draft(title: "Groceries", tags: ["home", "urgent"])
        JETaggedItem.Draft(title: "Taxes", tags: ["work"])
      }.execute(db)
      try JEProduct.insert {
        JEProduct.Draft(inventory: ["SFO": JEStock(onHand: 0), "JFK": JEStock(onHand: 4)])
        JEProduct.Draft(inventory: ["SFO": JEStock(onHand: 7)])
      }.execute(db)
      try JEPost.insert {
        JEPost.Draft(reactions: ["🎉": 12], writer: JEWriter(tags: ["swift", "sql"], scores: ["swift": 9]))
        JEPost.Draft(reactions: ["👍": 3], writer: JEWriter(tags: ["ruby"], scores: ["swift": 2]))
      }.execute(db)
      try JERoute.insert {
        JERoute.Draft(waypoints: [JECoordinate(latitude: 1, longitude: 2, label: "a")])
        JERoute.Draft(waypoints: nil)
      }.execute(db)
      try JEProfile.insert {
        JEProfile.Draft(author: JEAuthor(name: "Blob", links: [
          JELink(homepage: "https://pointfree.co", isActive: true), JELink(homepage: "https://example.com", isActive: false),
        ]))
        JEProfile.Draft(author: JEAuthor(name: "Blob Jr.", links: [JELink(homepage: "https://example.org", isActive: false)]))
      }.execute(db)
    }
    let rendered = try fixture.database.sqlAndRows(of: [
      JETaggedItem.where { $0.tags.jsonEach().where { $0.value.eq("urgent") }.exists() }.select(\.title),
      JETaggedItem.join(JETaggedItem.columns.tags.jsonEach()) { _, _ in true }.select { ($0.title, $1.key, $1.value) },
      JEProduct.where { $0.inventory.jsonEach().where { $0.key.eq("SFO") && $0.value.jsonExtract(\.onHand).eq(0) }.exists() }.select(\.id),
      JEProduct.join(JEProduct.columns.inventory.jsonEach()) { _, _ in true }.order { ($0.id, $1.key) }.select { ($1.key, $1.value.jsonExtract(\.onHand)) },
      JEPost.where { $0.reactions.jsonEach().where { $0.value > 10 }.exists() }.select(\.id),
      JEPost.where { $0.writer.jsonEach(\.tags).where { $0.value.eq("swift") }.exists() }.select(\.id),
      JEPost.where { $0.writer.jsonEach(\.scores).where { $0.key.eq("swift") && $0.value > 5 }.exists() }.select(\.id),
      JERoute.select { ($0.id, $0.waypoints.jsonEach().count()) },
      JEProfile.where { $0.author.jsonEach(\.links).where { $0.value.jsonExtract(\.isActive) }.exists() }.select { $0.author.jsonExtract(\.name) },
    ])
    assertInlineSnapshot(of: rendered, as: .lines) {
      """
      SELECT "jeTaggedItems"."title"
      FROM "jeTaggedItems"
      WHERE (EXISTS (
        SELECT "json_each"."key", "json_each"."value"
        FROM json_each("jeTaggedItems"."tags")
        WHERE ("json_each"."value" = 'urgent')
      ))
        Groceries
      SELECT "jeTaggedItems"."title", "json_each"."key", "json_each"."value"
      FROM "jeTaggedItems"
      JOIN json_each("jeTaggedItems"."tags") ON 1
        ("Groceries", 0, "home")
        ("Groceries", 1, "urgent")
        ("Taxes", 0, "work")
      SELECT "jeProducts"."id"
      FROM "jeProducts"
      WHERE (EXISTS (
        SELECT "json_each"."key", "json_each"."value"
        FROM json_each("jeProducts"."inventory")
        WHERE (("json_each"."key" = 'SFO') AND (json_extract("json_each"."value", '$."onHand"') = 0))
      ))
        1
      SELECT "json_each"."key", json_extract("json_each"."value", '$."onHand"')
      FROM "jeProducts"
      JOIN json_each("jeProducts"."inventory") ON 1
      ORDER BY "jeProducts"."id", "json_each"."key"
        ("JFK", 4)
        ("SFO", 0)
        ("SFO", 7)
      SELECT "jePosts"."id"
      FROM "jePosts"
      WHERE (EXISTS (
        SELECT "json_each"."key", "json_each"."value"
        FROM json_each("jePosts"."reactions")
        WHERE ("json_each"."value" > 10)
      ))
        1
      SELECT "jePosts"."id"
      FROM "jePosts"
      WHERE (EXISTS (
        SELECT "json_each"."key", "json_each"."value"
        FROM json_each("jePosts"."writer", '$."tags"')
        WHERE ("json_each"."value" = 'swift')
      ))
        1
      SELECT "jePosts"."id"
      FROM "jePosts"
      WHERE (EXISTS (
        SELECT "json_each"."key", "json_each"."value"
        FROM json_each("jePosts"."writer", '$."scores"')
        WHERE (("json_each"."key" = 'swift') AND ("json_each"."value" > 5))
      ))
        1
      SELECT "jeRoutes"."id", (
        SELECT count(*)
        FROM json_each("jeRoutes"."waypoints")
      )
      FROM "jeRoutes"
        (1, 1)
        (2, 0)
      SELECT json_extract("jeProfiles"."author", '$."name"')
      FROM "jeProfiles"
      WHERE (EXISTS (
        SELECT "json_each"."key", "json_each"."value"
        FROM json_each("jeProfiles"."author", '$."links"')
        WHERE json_extract("json_each"."value", '$."isActive"')
      ))
        Blob
      """
    }
  }

  /// A member that is an array of objects reads as its JSON, decoded; a
  /// key path through a computed property has no JSON path: the statement
  /// refuses to run, naming it.
  @Test func membersThatAreObjectsAndMembersThatAreNot() throws {
    try fixture.database.write { db in
      try JEProfile.insert {
        JEProfile.Draft(author: JEAuthor(name: "Blob", links: [JELink(homepage: "https://pointfree.co", isActive: true)]))
      }.execute(db)
    }
    let links = JEProfile.select { $0.author.jsonExtract(\.links) }
    let (sql, homepages) = try fixture.database.read { db in
      (links.query.description, try links.fetchAll(db).flatMap { $0.map(\.homepage) })
    }
    assertInlineSnapshot(of: ([sql] + homepages).joined(separator: "\n"), as: .lines) {
      """
      SELECT json_extract("jeProfiles"."author", '$."links"')
      FROM "jeProfiles"
      https://pointfree.co
      """
    }
    let error = #expect(throws: DatabaseError.self) {
      try fixture.database.read { db in try JEProfile.select { $0.author.jsonExtract(\.home.homepage) }.fetchAll(db) }
    }
    #expect(error?.message?.hasPrefix("cannot bind parameter 1: the JSON path $ goes on through \\JEAuthor.<computed") == true, "\(String(describing: error))")
    #expect(error?.message?.contains("which is not a stored property") == true)
  }
}
