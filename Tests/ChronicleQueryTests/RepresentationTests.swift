import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// Values stored through a representation, as upstream spells them
/// (`@Column(as: Date.UnixTimeRepresentation.self)`, `[String].JSONRepresentation`, …),
/// and `jsonGroupArray()` read as Swift arrays of values and of rows. Each
/// test shows what SQLite holds beside what Swift reads back.
@Suite("Query builder: representations and JSON arrays")
struct RepresentationTests {
  static let schema = """
    CREATE TABLE "sessions" (
      "id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL DEFAULT '',
      "startedAt" INTEGER NOT NULL, "endedAt" INTEGER, "dueDay" REAL NOT NULL,
      "device" BLOB NOT NULL, "owner" TEXT NOT NULL,
      "tags" TEXT NOT NULL DEFAULT '[]', "settings" TEXT, "isPinned" INTEGER NOT NULL DEFAULT 0
    ) STRICT;
    CREATE TABLE "sessionNotes" (
      "id" INTEGER PRIMARY KEY, "sessionID" INTEGER NOT NULL REFERENCES "sessions"("id"),
      "body" TEXT NOT NULL DEFAULT '', "isDone" INTEGER NOT NULL DEFAULT 0,
      "writtenAt" TEXT NOT NULL, "author" TEXT
    ) STRICT;
    """

  static let device = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!
  static let owner = UUID(uuidString: "0000000A-000B-000C-000D-00000000000E")!
  static let sessions = [
    Session(
      id: 1, title: "Run", startedAt: Date(timeIntervalSince1970: 1_517_212_800), endedAt: nil,
      dueDay: Date(timeIntervalSince1970: 43_200), device: device, owner: owner, tags: ["outdoor", "5k"],
      settings: SessionSettings(volume: 0.5, muted: false), isPinned: true),
    Session(
      id: 2, title: "Swim", startedAt: Date(timeIntervalSince1970: 1_517_299_200), endedAt: Date(timeIntervalSince1970: 1_517_302_800),
      dueDay: Date(timeIntervalSince1970: 0), device: device, owner: owner),
  ]

  func seeded() throws -> RemindersDatabase {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: Self.schema)
      try db.seed {
        Self.sessions[0]
        Self.sessions[1]
        SessionNote(id: 1, sessionID: 1, body: "warm up", isDone: true, writtenAt: Date(timeIntervalSince1970: 1_517_212_801.25), author: Self.owner)
        SessionNote(id: 2, sessionID: 1, body: "intervals", writtenAt: Date(timeIntervalSince1970: 1_517_212_900))
      }
    }
    return fixture
  }

  @Test func representationsStoreTheirFormAndReadBack() throws {
    let fixture = try seeded()
    func stored(_ db: Database) throws -> [String] {
      try Row.fetchAll(db, sql: """
        SELECT "id", "startedAt", typeof("startedAt") AS "type", "endedAt", "dueDay", hex("device") AS "device", "owner", "tags", "settings"
        FROM "sessions" ORDER BY "id"
        """).map(\.description)
    }
    let end = Date(timeIntervalSince1970: 1_517_216_400.9)
    let finish = Session.where { $0.id.eq(1) }.update {
      $0.endedAt = end
      $0.tags = ["outdoor", "5k", "rain"]
      $0.settings = nil
    }
    let (before, after, rows) = try fixture.database.write { db in
      let before = try stored(db)
      try finish.execute(db)
      return (before, try stored(db), try Session.order(by: \.id).fetchAll(db))
    }
    #expect(before.count == 2)
    assertInlineSnapshot(of: (before + after).joined(separator: "\n") + "\n" + finish.query.description, as: .lines) {
      #"""
      [id:1 startedAt:1517212800 type:"integer" endedAt:NULL dueDay:2440588.0 device:"00112233445566778899AABBCCDDEEFF" owner:"0000000A-000B-000C-000D-00000000000E" tags:"[\"outdoor\",\"5k\"]" settings:"{\"muted\":false,\"volume\":0.5}"]
      [id:2 startedAt:1517299200 type:"integer" endedAt:1517302800 dueDay:2440587.5 device:"00112233445566778899AABBCCDDEEFF" owner:"0000000A-000B-000C-000D-00000000000E" tags:"[]" settings:NULL]
      [id:1 startedAt:1517212800 type:"integer" endedAt:1517216400 dueDay:2440588.0 device:"00112233445566778899AABBCCDDEEFF" owner:"0000000A-000B-000C-000D-00000000000E" tags:"[\"outdoor\",\"5k\",\"rain\"]" settings:NULL]
      [id:2 startedAt:1517299200 type:"integer" endedAt:1517302800 dueDay:2440587.5 device:"00112233445566778899AABBCCDDEEFF" owner:"0000000A-000B-000C-000D-00000000000E" tags:"[]" settings:NULL]
      UPDATE "sessions"
      SET "endedAt" = 1517216400, "tags" = '["outdoor","5k","rain"]', "settings" = NULL
      WHERE ("sessions"."id" = 1)
      """#
    }
    var expected = Self.sessions
    expected[0].endedAt = Date(timeIntervalSince1970: 1_517_216_400)  // whole seconds
    expected[0].tags.append("rain")
    expected[0].settings = nil
    #expect(rows == expected)
  }

  @Test func jsonGroupArrayReadsValuesAndRows() throws {
    let fixture = try seeded()
    let titles = Session.order(by: \.id).select { $0.title.jsonGroupArray() }
    let pinned = Session.select { $0.isPinned.jsonGroupArray() }
    let ends = Session.select { $0.endedAt.jsonGroupArray() }
    // Without ORDER BY inside the aggregate (SQLite 3.44), rows come in the
    // order SQLite visits them: sorted here before printing.
    let summaries = Session.group(by: \.id)
      .leftJoin(SessionNote.all) { $0.id.eq($1.sessionID) }
      .order { session, _ in session.id }
      .select { SessionSummary.Columns(title: $0.title, notes: $1.jsonGroupArray()) }
    let done = Session.group(by: \.id)
      .join(SessionNote.all) { $0.id.eq($1.sessionID) }
      .select { ($0.title, $1.jsonGroupArray(filter: $1.isDone)) }
    let rendered = try fixture.database.read { db in
      [
        titles.query.description, "  -> \(try titles.fetchAll(db))",
        pinned.query.description, "  -> \(try pinned.fetchAll(db))",
        ends.query.description, "  -> \(try ends.fetchAll(db).map { $0.map { $0?.timeIntervalSince1970 } })",
        summaries.query.description,
      ] + (try summaries.fetchAll(db)).map { summary in
        "  -> \(summary.title): " + summary.notes.sorted { $0.id < $1.id }.map { "\($0.id) \($0.body) \($0.isDone) \($0.writtenAt.timeIntervalSince1970) \($0.author?.uuidString ?? "nil")" }.joined(separator: "; ")
      } + [done.query.description] + (try done.fetchAll(db)).map { "  -> \($0.0): \($0.1.map(\.body))" }
    }
    assertInlineSnapshot(of: rendered.joined(separator: "\n"), as: .lines) {
      """
      SELECT json_group_array("sessions"."title")
      FROM "sessions"
      ORDER BY "sessions"."id"
        -> [["Run", "Swim"]]
      SELECT json_group_array(json(CASE "sessions"."isPinned" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END))
      FROM "sessions"
        -> [[true, false]]
      SELECT json_group_array("sessions"."endedAt")
      FROM "sessions"
        -> [[nil, Optional(1517302800.0)]]
      SELECT "sessions"."title" AS "title", json_group_array(CASE WHEN ("sessionNotes"."id" IS NOT NULL) THEN json_object('id', json_quote("sessionNotes"."id"), 'sessionID', json_quote("sessionNotes"."sessionID"), 'body', json_quote("sessionNotes"."body"), 'isDone', json(CASE "sessionNotes"."isDone" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END), 'writtenAt', json_quote("sessionNotes"."writtenAt"), 'author', json_quote("sessionNotes"."author")) END) FILTER (WHERE ("sessionNotes"."id" IS NOT NULL)) AS "notes"
      FROM "sessions"
      LEFT JOIN "sessionNotes" ON ("sessions"."id" = "sessionNotes"."sessionID")
      GROUP BY "sessions"."id"
      ORDER BY "sessions"."id"
        -> Run: 1 warm up true 1517212801.25 0000000A-000B-000C-000D-00000000000E; 2 intervals false 1517212900.0 nil
        -> Swim: 
      SELECT "sessions"."title", json_group_array(json_object('id', json_quote("sessionNotes"."id"), 'sessionID', json_quote("sessionNotes"."sessionID"), 'body', json_quote("sessionNotes"."body"), 'isDone', json(CASE "sessionNotes"."isDone" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END), 'writtenAt', json_quote("sessionNotes"."writtenAt"), 'author', json_quote("sessionNotes"."author"))) FILTER (WHERE "sessionNotes"."isDone")
      FROM "sessions"
      JOIN "sessionNotes" ON ("sessions"."id" = "sessionNotes"."sessionID")
      GROUP BY "sessions"."id"
        -> Run: ["warm up"]
      """
    }
  }

  /// `jsonGroupArray()` of a table read under an alias (a self-join) reads
  /// back as `[TableAlias]` when the table is `Codable`; of a table that is
  /// not, it is JSON text. Both pass the row's columns as one argument
  /// (before 2026-11-26 both passed them as several, and SQLite refused the
  /// statement: "wrong number of arguments to function json_group_array()").
  @Test func jsonGroupArrayOfAnAliasedOrNonCodableTable() throws {
    let fixture = try seeded()
    enum Sibling: AliasName {}
    let siblings = SessionNote.group(by: \.id)
      .leftJoin(SessionNote.as(Sibling.self).all) { $0.sessionID.eq($1.sessionID) && $0.id.neq($1.id) }
      .order { note, _ in note.id }
      .select { ($0.body, $1.jsonGroupArray()) }
    enum Other: AliasName {}
    let sameUses = Tag.group(by: \.title)
      .leftJoin(Tag.as(Other.self).all) { $0.useCount.eq($1.useCount) && $0.title.neq($1.title) }
      .order { tag, _ in tag.title }
      .select { ($0.title, $1.jsonGroupArray()) }
    try fixture.database.write { db in
      try Tag.insert { Tag(title: "car", useCount: 2); Tag(title: "kids", useCount: 2); Tag(title: "someday", useCount: 1) }.execute(db)
    }
    let rendered = try fixture.database.read { db in
      [siblings.query.description]
        + (try siblings.fetchAll(db)).map { "  -> \($0.0): \($0.1.map(\.body))" }
        + [sameUses.query.description]
        + (try sameUses.fetchAll(db)).map { "  -> \($0.0): \($0.1)" }
    }
    assertInlineSnapshot(of: rendered.joined(separator: "\n"), as: .lines) {
      """
      SELECT "sessionNotes"."body", json_group_array(CASE WHEN ("siblings"."id" IS NOT NULL) THEN json_object('id', json_quote("siblings"."id"), 'sessionID', json_quote("siblings"."sessionID"), 'body', json_quote("siblings"."body"), 'isDone', json(CASE "siblings"."isDone" WHEN 0 THEN 'false' WHEN 1 THEN 'true' END), 'writtenAt', json_quote("siblings"."writtenAt"), 'author', json_quote("siblings"."author")) END) FILTER (WHERE ("siblings"."id" IS NOT NULL))
      FROM "sessionNotes"
      LEFT JOIN "sessionNotes" AS "siblings" ON (("sessionNotes"."sessionID" = "siblings"."sessionID") AND ("sessionNotes"."id" <> "siblings"."id"))
      GROUP BY "sessionNotes"."id"
      ORDER BY "sessionNotes"."id"
        -> warm up: ["intervals"]
        -> intervals: ["warm up"]
      SELECT "tags"."title", json_group_array(CASE WHEN ("others"."title" IS NOT NULL) THEN json_object('title', json_quote("others"."title"), 'uses', json_quote("others"."uses")) END) FILTER (WHERE ("others"."title" IS NOT NULL))
      FROM "tags"
      LEFT JOIN "tags" AS "others" ON (("tags"."uses" = "others"."uses") AND ("tags"."title" <> "others"."title"))
      GROUP BY "tags"."title"
      ORDER BY "tags"."title"
        -> car: [{"title":"kids","uses":2}]
        -> kids: [{"title":"car","uses":2}]
        -> someday: []
      """
    }
  }

  /// A `[UInt8]` property is a BLOB column, as `Data` is (upstream's
  /// spelling for bytes): written, read back, and passed to blob functions.
  @Test func bytesAreABlobColumn() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: #"CREATE TABLE "thumbnails" ("id" INTEGER PRIMARY KEY, "bytes" BLOB NOT NULL, "mask" BLOB) STRICT"#)
      try Thumbnail.insert {
        Thumbnail(id: 1, bytes: [0x00, 0xFF, 0x10], mask: nil)
        Thumbnail(id: 2, bytes: [], mask: [0x01])
      }.execute(db)
    }
    let described = Thumbnail.order(by: \.id).select { ($0.id, $0.bytes.hex(), $0.bytes.length(), $0.mask) }
    let rows = try fixture.database.read { db in try Thumbnail.order(by: \.id).fetchAll(db) }
    let output = [try fixture.database.sqlAndRows(described)] + rows.map { "\($0)" }
    assertInlineSnapshot(of: output.joined(separator: "\n"), as: .lines) {
      """
      SELECT "thumbnails"."id", hex("thumbnails"."bytes"), length("thumbnails"."bytes"), "thumbnails"."mask"
      FROM "thumbnails"
      ORDER BY "thumbnails"."id"
      (1, "00FF10", 3, nil)
      (2, "", 0, Optional([1]))
      Thumbnail(id: 1, bytes: [0, 255, 16], mask: nil)
      Thumbnail(id: 2, bytes: [], mask: Optional([1]))
      """
    }
  }

  /// An enum that is not `QueryBindable` stored by its raw value through
  /// `@Column(as: Ranking.RawRepresentation.self)`: bound, filtered on,
  /// returned, read back; a raw value with no case is an error naming it.
  @Test func rawRepresentableValuesAreStoredByTheirRawValue() throws {
    let fixture = try RemindersDatabase()
    let database = fixture.database
    try database.write { db in
      try db.execute(sql: #"CREATE TABLE "rankedItems" ("id" INTEGER PRIMARY KEY, "ranking" INTEGER NOT NULL, "backupRanking" INTEGER) STRICT"#)
      try db.execute(sql: #"INSERT INTO "rankedItems" VALUES (1, 2, NULL), (2, 0, 2)"#)
    }
    let insert = RankedItem.insert { RankedItem.Draft(id: 3, ranking: .medium, backupRanking: .high) }.returning(\.self)
    let filtered = RankedItem.where { $0.backupRanking.eq(#bind(.high, as: Ranking.RawRepresentation.self)) }.order(by: \.id).select { ($0.id, $0.ranking) }
    let update = RankedItem.where { $0.id.eq(1) }.update { $0.backupRanking = Ranking.low }.returning(\.backupRanking)
    let statements: [any QueryStatement] = [insert, filtered, update, RankedItem.order(by: \.id)]
    assertInlineSnapshot(of: try database.sqlAndRows(of: statements), as: .lines) {
      """
      INSERT INTO "rankedItems"
      ("id", "ranking", "backupRanking")
      VALUES
      (3, 1, 2)
      RETURNING "id", "ranking", "backupRanking"
        RankedItem(id: 3, ranking: ChronicleQueryTests.Ranking.medium, backupRanking: Optional(ChronicleQueryTests.Ranking.high))
      SELECT "rankedItems"."id", "rankedItems"."ranking"
      FROM "rankedItems"
      WHERE ("rankedItems"."backupRanking" = 2)
      ORDER BY "rankedItems"."id"
        (2, ChronicleQueryTests.Ranking.low)
        (3, ChronicleQueryTests.Ranking.medium)
      UPDATE "rankedItems"
      SET "backupRanking" = 0
      WHERE ("rankedItems"."id" = 1)
      RETURNING "backupRanking"
        Optional(ChronicleQueryTests.Ranking.low)
      SELECT "rankedItems"."id", "rankedItems"."ranking", "rankedItems"."backupRanking"
      FROM "rankedItems"
      ORDER BY "rankedItems"."id"
        RankedItem(id: 1, ranking: ChronicleQueryTests.Ranking.high, backupRanking: Optional(ChronicleQueryTests.Ranking.low))
        RankedItem(id: 2, ranking: ChronicleQueryTests.Ranking.low, backupRanking: Optional(ChronicleQueryTests.Ranking.high))
        RankedItem(id: 3, ranking: ChronicleQueryTests.Ranking.medium, backupRanking: Optional(ChronicleQueryTests.Ranking.high))
      """
    }
    try database.write { db in try db.execute(sql: #"UPDATE "rankedItems" SET "ranking" = 7 WHERE "id" = 2"#) }
    let error = #expect(throws: QueryDecodingError.self) {
      _ = try database.read { db in try RankedItem.order(by: \.id).fetchAll(db) }
    }
    #expect(error?.column == "ranking")
    #expect("\(error.map { "\($0)" } ?? "")".contains("not 7"))
  }

  @Test func badValuesFailWithTheirReasonAndWriteNothing() throws {
    let fixture = try seeded()
    let unencodable = Session.where { $0.id.eq(2) }.update { $0.settings = SessionSettings(volume: .nan, muted: true) }
    let thrown = #expect(throws: (any Error).self) {
      try fixture.database.write { db in try unencodable.execute(db) }
    }
    #expect("\(thrown.map { "\($0)" } ?? "")".contains("has no JSON form"))
    let notJSON = #sql("SELECT 'not json'", as: [String].JSONRepresentation.self)
    let decoding = #expect(throws: QueryDecodingError.self) {
      _ = try fixture.database.read { db in try notJSON.fetchAll(db) }
    }
    #expect(decoding?.expected == "Array<String> (JSON)")
    let shortBlob = #sql("SELECT x'0011'", as: UUID.BytesRepresentation.self)
    #expect(throws: QueryDecodingError.self) {
      _ = try fixture.database.read { db in try shortBlob.fetchAll(db) }
    }
    let settings = try fixture.database.read { db in try Session.order(by: \.id).select(\.settings).fetchAll(db) }
    #expect(settings == [SessionSettings(volume: 0.5, muted: false), nil])
  }
}

// Models at file scope: a nested @Table may name its own type, but code
// the macros add in extensions cannot see types nested beside it.
struct SessionSettings: Codable, Equatable {
  var volume: Double
  var muted: Bool
}

@Table
struct Session: Equatable, Codable {
  let id: Int
  var title = ""
  @Column(as: Date.UnixTimeRepresentation.self) var startedAt: Date
  @Column(as: Date?.UnixTimeRepresentation.self) var endedAt: Date?
  @Column(as: Date.JulianDayRepresentation.self) var dueDay: Date
  @Column(as: UUID.BytesRepresentation.self) var device: UUID
  @Column(as: UUID.UppercasedRepresentation.self) var owner: UUID
  @Column(as: [String].JSONRepresentation.self) var tags: [String] = []
  @Column(as: SessionSettings?.JSONRepresentation.self) var settings: SessionSettings?
  var isPinned = false
}

@Table
struct SessionNote: Equatable, Codable {
  let id: Int
  var sessionID: Int
  var body = ""
  var isDone = false
  var writtenAt: Date
  var author: UUID?
}

@Selection
struct SessionSummary: Equatable {
  var title: String
  @Column(as: [SessionNote].JSONRepresentation.self) var notes: [SessionNote]
}

enum Ranking: Int {
  case low, medium, high
}

@Table
struct RankedItem {
  let id: Int
  @Column(as: Ranking.RawRepresentation.self) var ranking: Ranking
  @Column(as: Ranking?.RawRepresentation.self) var backupRanking: Ranking?
}

@Table
struct Thumbnail: Equatable {
  let id: Int
  var bytes: [UInt8]
  var mask: [UInt8]?
}
