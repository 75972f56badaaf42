import Chronicle
import ChronicleQueryTestSupport
import Foundation
import InlineSnapshotTesting
import Testing

struct JDLink: Codable, Equatable, Sendable {
  var homepage = ""
}

struct JDAuthor: Codable, Equatable, Sendable {
  var name = ""
  var isVerified = false
  var nickname: String?
  var links: [JDLink] = []
  var best: JDLink?
  var scores: [String: Int] = [:]
}

struct JDBox<Item: Codable & Sendable>: Codable, Sendable {
  var label = ""
  var item: Item
}

@Table("jdProfiles") struct JDProfile {
  let id: Int
  var isActive = false
  @Column(as: JDAuthor.JSONRepresentation.self)
  var author: JDAuthor
  @Column(as: [String].JSONRepresentation.self)
  var tags: [String] = []
  @Column(as: [JDLink].JSONRepresentation.self)
  var archive: [JDLink] = []
}

/// Places inside a JSON document named by key paths (members, array
/// elements, dictionary keys, through optionals), and documents edited in
/// place with `jsonSet`, `jsonInsert`, `jsonReplace`, `jsonAppend` and
/// `jsonRemove`, as upstream's JSON article spells them. Every edited
/// document is read back through its `Codable` type: an edit that left it
/// undecodable would fail here.
@Suite("Query builder: JSON paths and edits in place")
struct JSONEditTests {
  let fixture: RemindersDatabase
  var database: ChronicleDatabase { fixture.database }

  init() throws {
    fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: """
        CREATE TABLE "jdProfiles" (
          "id" INTEGER PRIMARY KEY, "isActive" INTEGER NOT NULL, "author" TEXT NOT NULL,
          "tags" TEXT NOT NULL, "archive" TEXT NOT NULL
        ) STRICT
        """)
      try JDProfile.insert {
        JDProfile(
          id: 1, isActive: true,
          author: JDAuthor(
            name: "Blob", links: [JDLink(homepage: "pointfree.co"), JDLink(homepage: "blob.com")],
            best: JDLink(homepage: "pointfree.co"), scores: ["swift": 9]),
          tags: ["a"], archive: [JDLink(homepage: "old.blob.com")])
        JDProfile(id: 2, author: JDAuthor(name: "Blob Jr", nickname: "Junior"))
      }.execute(db)
    }
  }

  @Test func pathsIntoArraysDictionariesAndOptionals() {
    assertQuery(
      includeSQL: true,
      JDProfile.order(by: \.id).select {
        (
          $0.author.jsonExtract(\.links[0].homepage), $0.author.jsonExtract(\.scores["swift"]),
          $0.author.jsonExtract(\.best.homepage), $0.author.jsonArrayLength(\.links)
        )
      },
      database: database
    ) {
      """
      SELECT json_extract("jdProfiles"."author", '$."links"[0]."homepage"'), json_extract("jdProfiles"."author", '$."scores"."swift"'), json_extract("jdProfiles"."author", '$."best"."homepage"'), json_array_length("jdProfiles"."author", '$."links"')
      FROM "jdProfiles"
      ORDER BY "jdProfiles"."id"
      """
    } results: {
      """
      ┌────────────────┬─────┬────────────────┬───┐
      │ "pointfree.co" │ 9   │ "pointfree.co" │ 2 │
      │ nil            │ nil │ nil            │ 0 │
      └────────────────┴─────┴────────────────┴───┘
      """
    }
  }

  @Test func setFusesConsecutiveCallsAndWritesBooleansAsJSON() {
    assertQuery(
      includeSQL: true,
      JDProfile.find(1).update { $0.author = $0.author.jsonSet(\.name, "Blob, Esq.").jsonSet(\.isVerified, true) }
        .returning(\.author),
      database: database
    ) {
      """
      UPDATE "jdProfiles"
      SET "author" = json_set("jdProfiles"."author", '$."name"', 'Blob, Esq.', '$."isVerified"', json('true'))
      WHERE ("jdProfiles"."id" IN (1))
      RETURNING "author"
      """
    } results: {
      """
      ┌────────────────────────────────────────────┐
      │ JDAuthor(                                  │
      │   name: "Blob, Esq.",                      │
      │   isVerified: true,                        │
      │   nickname: nil,                           │
      │   links: [                                 │
      │     [0]: JDLink(homepage: "pointfree.co"), │
      │     [1]: JDLink(homepage: "blob.com")      │
      │   ],                                       │
      │   best: JDLink(homepage: "pointfree.co"),  │
      │   scores: [                                │
      │     "swift": 9                             │
      │   ]                                        │
      │ )                                          │
      └────────────────────────────────────────────┘
      """
    }
  }

  @Test func setFromColumnsAndSwiftValues() {
    assertQuery(
      includeSQL: true,
      JDProfile.find(1).update {
        $0.author = $0.author
          .jsonSet(\.isVerified, $0.isActive)
          .jsonSet(\.links, $0.archive)
          .jsonSet(\.best, JDLink(homepage: "new.blob.com"))
          .jsonSet(\.nickname, "Blobby")
      }
      .returning(\.author),
      database: database
    ) {
      """
      UPDATE "jdProfiles"
      SET "author" = json_set("jdProfiles"."author", '$."isVerified"', json(CASE "jdProfiles"."isActive" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END), '$."links"', json("jdProfiles"."archive"), '$."best"', json('{"homepage":"new.blob.com"}'), '$."nickname"', 'Blobby')
      WHERE ("jdProfiles"."id" IN (1))
      RETURNING "author"
      """
    } results: {
      """
      ┌───────────────────────────────────────────┐
      │ JDAuthor(                                 │
      │   name: "Blob",                           │
      │   isVerified: true,                       │
      │   nickname: "Blobby",                     │
      │   links: [                                │
      │     [0]: JDLink(homepage: "old.blob.com") │
      │   ],                                      │
      │   best: JDLink(homepage: "new.blob.com"), │
      │   scores: [                               │
      │     "swift": 9                            │
      │   ]                                       │
      │ )                                         │
      └───────────────────────────────────────────┘
      """
    }
  }

  @Test func insertOnlyWhereAbsentReplaceOnlyWherePresent() {
    assertQuery(
      includeSQL: true,
      JDProfile.update {
        $0.author = $0.author
          .jsonInsert(\.nickname, "Blobby")
          .jsonInsert(\.best, JDLink(homepage: "inserted.com"))
      }
      .returning { ($0.id, $0.author.jsonExtract(\.nickname), $0.author.jsonExtract(\.best.homepage)) },
      database: database
    ) {
      """
      UPDATE "jdProfiles"
      SET "author" = json_insert("jdProfiles"."author", '$."nickname"', 'Blobby', '$."best"', json('{"homepage":"inserted.com"}'))
      RETURNING "id", json_extract("author", '$."nickname"'), json_extract("author", '$."best"."homepage"')
      """
    } results: {
      """
      ┌───┬──────────┬────────────────┐
      │ 1 │ "Blobby" │ "pointfree.co" │
      │ 2 │ "Junior" │ "inserted.com" │
      └───┴──────────┴────────────────┘
      """
    }
    assertQuery(
      includeSQL: true,
      JDProfile.find(1).update {
        $0.author = $0.author.jsonReplace(\.links[1].homepage, "blob.org").jsonReplace(\.links[5].homepage, "nowhere")
      }
      .returning(\.author),
      database: database
    ) {
      """
      UPDATE "jdProfiles"
      SET "author" = json_replace("jdProfiles"."author", '$."links"[1]."homepage"', 'blob.org', '$."links"[5]."homepage"', 'nowhere')
      WHERE ("jdProfiles"."id" IN (1))
      RETURNING "author"
      """
    } results: {
      """
      ┌────────────────────────────────────────────┐
      │ JDAuthor(                                  │
      │   name: "Blob",                            │
      │   isVerified: false,                       │
      │   nickname: "Blobby",                      │
      │   links: [                                 │
      │     [0]: JDLink(homepage: "pointfree.co"), │
      │     [1]: JDLink(homepage: "blob.org")      │
      │   ],                                       │
      │   best: JDLink(homepage: "pointfree.co"),  │
      │   scores: [                                │
      │     "swift": 9                             │
      │   ]                                        │
      │ )                                          │
      └────────────────────────────────────────────┘
      """
    }
  }

  @Test func appendToAnArrayAndToAnArrayColumn() {
    assertQuery(
      includeSQL: true,
      JDProfile.find(1).update {
        $0.author = $0.author.jsonAppend(\.links, JDLink(homepage: "appended.com"))
        $0.tags = $0.tags.jsonAppend("b").jsonAppend("c")
      }
      .returning { ($0.author.jsonExtract(\.links), $0.tags) },
      database: database
    ) {
      """
      UPDATE "jdProfiles"
      SET "author" = json_insert("jdProfiles"."author", '$."links"[#]', json('{"homepage":"appended.com"}')), "tags" = json_insert("jdProfiles"."tags", '$[#]', 'b', '$[#]', 'c')
      WHERE ("jdProfiles"."id" IN (1))
      RETURNING json_extract("author", '$."links"'), "tags"
      """
    } results: {
      """
      ┌──────────────────────────────────────────┬─────────────┐
      │ [                                        │ [           │
      │   [0]: JDLink(homepage: "pointfree.co"), │   [0]: "a", │
      │   [1]: JDLink(homepage: "blob.com"),     │   [1]: "b", │
      │   [2]: JDLink(homepage: "appended.com")  │   [2]: "c"  │
      │ ]                                        │ ]           │
      └──────────────────────────────────────────┴─────────────┘
      """
    }
  }

  @Test func removeMembersElementsAndKeys() {
    assertQuery(
      includeSQL: true,
      JDProfile.find(1).update {
        $0.author = $0.author.jsonRemove(\.links[0]).jsonRemove(\.best).jsonRemove(\.scores["swift"])
      }
      .returning(\.author),
      database: database
    ) {
      """
      UPDATE "jdProfiles"
      SET "author" = json_remove("jdProfiles"."author", '$."links"[0]', '$."best"', '$."scores"."swift"')
      WHERE ("jdProfiles"."id" IN (1))
      RETURNING "author"
      """
    } results: {
      """
      ┌───────────────────────────────────────┐
      │ JDAuthor(                             │
      │   name: "Blob",                       │
      │   isVerified: false,                  │
      │   nickname: nil,                      │
      │   links: [                            │
      │     [0]: JDLink(homepage: "blob.com") │
      │   ],                                  │
      │   best: nil,                          │
      │   scores: [:]                         │
      │ )                                     │
      └───────────────────────────────────────┘
      """
    }
  }

  /// A document whose type is generic names its members as any other.
  @Test func aGenericDocumentType() throws {
    let box = SQLQueryExpression<CodableJSONRepresentation<JDBox<Int>>>(QueryFragment(sql: #"'{"label":"a","item":7}'"#))
    let statement = Values(box.jsonExtract(\.label), box.jsonExtract(\.item))
    #expect(statement.query.description == #"SELECT json_extract('{"label":"a","item":7}', '$."label"'), json_extract('{"label":"a","item":7}', '$."item"')"#)
    #expect(try database.read { db in try statement.fetchOne(db) }.map { "\($0) \($1)" } == "a 7")
  }

  /// A path SQLite cannot follow fails the statement before it runs, and
  /// says why: a computed property, a dictionary key holding `"`.
  @Test func pathsThatNameNoPlaceFailNamingTheProblem() throws {
    let quoted = #expect(throws: DatabaseError.self) {
      try database.read { db in try JDProfile.select { $0.author.jsonExtract(\.scores[#"say "hi""#]) }.fetchAll(db) }
    }
    #expect(quoted?.message?.contains(#"goes on to the key "say \"hi\"", which SQLite's JSON paths cannot name"#) == true, "\(String(describing: quoted))")
    let edit = #expect(throws: DatabaseError.self) {
      try database.write { db in try JDProfile.update { $0.author = $0.author.jsonRemove(\.scores[#"a"b"#]) }.execute(db) }
    }
    #expect(edit?.message?.contains("cannot name") == true)
    let unchanged = try database.read { db in try JDProfile.find(1).select(\.author).fetchOne(db) }
    #expect(unchanged?.scores == ["swift": 9])
  }

  /// An edit in a trigger's statement, where values are written into the SQL.
  @Test func anEditInATrigger() throws {
    let trigger = JDProfile.createTemporaryTrigger(
      "jd_verify",
      after: .update(of: { [$0.isActive] }) { _, new in
        JDProfile.find(new.id).update { $0.author = $0.author.jsonSet(\.isVerified, new.isActive).jsonSet(\.nickname, "active") }
      })
    try database.write { db in
      try trigger.execute(db)
      try JDProfile.find(2).update { $0.isActive = true }.execute(db)
    }
    let author = try database.read { db in try JDProfile.find(2).select(\.author).fetchOne(db) }
    #expect(author?.isVerified == true)
    #expect(author?.nickname == "active")
    #expect(trigger.query.description.contains(#"json_set("jdProfiles"."author", '$."isVerified"', json(CASE "new"."isActive" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END), '$."nickname"', 'active')"#), "\(trigger.query)")
  }
}
