import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// The seeds' single-table inheritance: an attachment is a link, a note or
/// an image, each case stored in columns of its own (NULL for the others).
@Table("esAttachments") struct ESAttachment: Identifiable, Equatable {
  let id: Int
  var kind: Kind

  @Selection
  enum Kind: Equatable {
    case link(String)
    case note(String)
    case image(ESAttachment.Image)
    /// A case's column named, and stored through a representation, as upstream's `@Column` on a case.
    @Column("tagList", as: [String].JSONRepresentation.self)
    case tags([String])
  }

  @Selection
  struct Image: Equatable {
    var caption = ""
    var url: String
  }
}

private enum ESNext: AliasName {}

/// A query's row holding a case built in the query.
@Selection struct ESLabel {
  let id: Int
  let kind: ESAttachment.Kind
}

@Suite("Query builder: enum selections (one table, one case per row)")
struct EnumSelectionTests {
  let fixture: RemindersDatabase

  init() throws {
    fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: """
        CREATE TABLE esAttachments (
          id INTEGER PRIMARY KEY, link TEXT, note TEXT, caption TEXT, url TEXT, tagList TEXT
        ) STRICT
        """)
    }
  }

  /// Attachments 1 to 3: a link, a note and an image.
  func insertALinkANoteAndAnImage() throws {
    try fixture.database.write { db in
      try ESAttachment.insert {
        ESAttachment(id: 1, kind: .link("https://pointfree.co"))
        ESAttachment(id: 2, kind: .note("Hello world!"))
        ESAttachment(id: 3, kind: .image(ESAttachment.Image(caption: "Blob", url: "https://example.com/blob.png")))
      }.execute(db)
    }
  }

  @Test func casesAreInsertedIntoTheirColumnsAndReadBack() throws {
    let insert = ESAttachment.insert {
      ESAttachment(id: 1, kind: .link("https://pointfree.co"))
      ESAttachment(id: 2, kind: .note("Hello world!"))
      ESAttachment(id: 3, kind: .image(ESAttachment.Image(caption: "Blob", url: "https://example.com/blob.png")))
      ESAttachment(id: 5, kind: .tags(["home", "work"]))
    }
    // As the seeds write it: a draft takes its key from the table.
    let draft = ESAttachment.insert { ESAttachment.Draft(kind: .note("Drafted")) }
    let all = ESAttachment.order(by: \.id)
    let (stored, read) = try fixture.database.write { db in
      try insert.execute(db)
      try draft.execute(db)
      return (
        try Row.fetchAll(db, sql: "SELECT * FROM esAttachments ORDER BY id").map { "\($0)" },
        try all.fetchAll(db).map { "\($0.id) \($0.kind)" })
    }
    assertInlineSnapshot(of: ([insert.query.description, draft.query.description, all.query.description] + stored + read).joined(separator: "\n"), as: .lines) {
      #"""
      INSERT INTO "esAttachments"
      ("id", "link", "note", "caption", "url", "tagList")
      VALUES
      (1, 'https://pointfree.co', NULL, NULL, NULL, NULL), (2, NULL, 'Hello world!', NULL, NULL, NULL), (3, NULL, NULL, 'Blob', 'https://example.com/blob.png', NULL), (5, NULL, NULL, NULL, NULL, '["home","work"]')
      INSERT INTO "esAttachments"
      ("link", "note", "caption", "url", "tagList")
      VALUES
      (NULL, 'Drafted', NULL, NULL, NULL)
      SELECT "esAttachments"."id", "esAttachments"."link", "esAttachments"."note", "esAttachments"."caption", "esAttachments"."url", "esAttachments"."tagList"
      FROM "esAttachments"
      ORDER BY "esAttachments"."id"
      [id:1 link:"https://pointfree.co" note:NULL caption:NULL url:NULL tagList:NULL]
      [id:2 link:NULL note:"Hello world!" caption:NULL url:NULL tagList:NULL]
      [id:3 link:NULL note:NULL caption:"Blob" url:"https://example.com/blob.png" tagList:NULL]
      [id:5 link:NULL note:NULL caption:NULL url:NULL tagList:"[\"home\",\"work\"]"]
      [id:6 link:NULL note:"Drafted" caption:NULL url:NULL tagList:NULL]
      1 link("https://pointfree.co")
      2 note("Hello world!")
      3 image(ChronicleQueryTests.ESAttachment.Image(caption: "Blob", url: "https://example.com/blob.png"))
      5 tags(["home", "work"])
      6 note("Drafted")
      """#
    }
  }

  @Test func queriesReachACaseThroughItsAccessor() throws {
    try insertALinkANoteAndAnImage()
    try fixture.database.write { db in try ESAttachment.insert { ESAttachment(id: 4, kind: .note("Second note")) }.execute(db) }
    let notes = ESAttachment.where { $0.kind.note.isNot(nil) }.select { ($0.id, $0.kind.note) }
    let changed = ESAttachment.find(1).update { $0.kind = .note("Was a link") }
    let labels = ESAttachment.where { $0.kind.link.is(nil) }.select { ESLabel.Columns(id: $0.id, kind: ESAttachment.Kind.Columns.note($0.kind.note ?? "an image")) }
    let (found, labelled) = try fixture.database.write { db in
      let found = try notes.fetchAll(db).map { "\($0.0) \($0.1 ?? "nil")" }
      try changed.execute(db)
      return (found, try labels.fetchAll(db).map { "\($0.id) \($0.kind)" })
    }
    assertInlineSnapshot(of: ([notes.query.description] + found + [changed.query.description, labels.query.description] + labelled).joined(separator: "\n"), as: .lines) {
      """
      SELECT "esAttachments"."id", "esAttachments"."note"
      FROM "esAttachments"
      WHERE ("esAttachments"."note" IS NOT NULL)
      2 Hello world!
      4 Second note
      UPDATE "esAttachments"
      SET ("link", "note", "caption", "url", "tagList") = (NULL, 'Was a link', NULL, NULL, NULL)
      WHERE ("esAttachments"."id" IN (1))
      SELECT "esAttachments"."id", NULL, coalesce("esAttachments"."note", 'an image'), NULL, NULL, NULL
      FROM "esAttachments"
      WHERE ("esAttachments"."link" IS NULL)
      1 note("Was a link")
      2 note("Hello world!")
      3 note("an image")
      4 note("Second note")
      """
    }
  }

  @Test func casesAndTheirColumnGroupsInFiltersAndSelects() throws {
    try insertALinkANoteAndAnImage()
    let notes = ESAttachment.where { $0.kind.is(\.note) }.select(\.id)
    let images = ESAttachment.where { $0.kind.is(\.image) }.select(\.id)
    let imageValues = ESAttachment.where { $0.kind.image.isNot(nil) }.select { $0.kind.image }
    let exactly = ESAttachment.where { $0.kind.is(ESAttachment.Kind.note("Hello world!")) }.select(\.id)
    let kinds = ESAttachment.order(by: \.id).select { $0.kind }
    let lines = try fixture.database.read { db in
      [notes.query.description, "\(try notes.fetchAll(db))", images.query.description, "\(try images.fetchAll(db))",
       imageValues.query.description, "\(try imageValues.fetchAll(db))", exactly.query.description, "\(try exactly.fetchAll(db))",
       kinds.query.description] + (try kinds.fetchAll(db)).map { "\($0)" }
    }
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      SELECT "esAttachments"."id"
      FROM "esAttachments"
      WHERE ("esAttachments"."note" IS NOT NULL)
      [2]
      SELECT "esAttachments"."id"
      FROM "esAttachments"
      WHERE (("esAttachments"."caption", "esAttachments"."url") IS NOT (NULL, NULL))
      [3]
      SELECT "esAttachments"."caption", "esAttachments"."url"
      FROM "esAttachments"
      WHERE (("esAttachments"."caption", "esAttachments"."url") IS NOT (NULL, NULL))
      [Optional(ChronicleQueryTests.ESAttachment.Image(caption: "Blob", url: "https://example.com/blob.png"))]
      SELECT "esAttachments"."id"
      FROM "esAttachments"
      WHERE (("esAttachments"."link", "esAttachments"."note", "esAttachments"."caption", "esAttachments"."url", "esAttachments"."tagList") IS (NULL, 'Hello world!', NULL, NULL, NULL))
      [2]
      SELECT "esAttachments"."link", "esAttachments"."note", "esAttachments"."caption", "esAttachments"."url", "esAttachments"."tagList"
      FROM "esAttachments"
      ORDER BY "esAttachments"."id"
      link("https://pointfree.co")
      note("Hello world!")
      image(ChronicleQueryTests.ESAttachment.Image(caption: "Blob", url: "https://example.com/blob.png"))
      """
    }
  }

  @Test func casesOnTheNullableSideOfAnOuterJoin() throws {
    try insertALinkANoteAndAnImage()
    // Each attachment beside the next one, if any.
    let query = ESAttachment
      .leftJoin(ESAttachment.as(ESNext.self).all) { $0.id.eq($1.id - 1) }
      .order { attachment, _ in attachment.id }
      .select { ($0.id, $1.kind.note, $1.kind.image, $1.kind) }
    let rows = try fixture.database.read { db in try query.fetchAll(db) }
    assertInlineSnapshot(of: ([query.query.description] + rows.map { "\($0)" }).joined(separator: "\n"), as: .lines) {
      """
      SELECT "esAttachments"."id", "eSNexts"."note", "eSNexts"."caption", "eSNexts"."url", "eSNexts"."link", "eSNexts"."note", "eSNexts"."caption", "eSNexts"."url", "eSNexts"."tagList"
      FROM "esAttachments"
      LEFT JOIN "esAttachments" AS "eSNexts" ON ("esAttachments"."id" = ("eSNexts"."id" - 1))
      ORDER BY "esAttachments"."id"
      (1, Optional("Hello world!"), nil, Optional(ChronicleQueryTests.ESAttachment.Kind.note("Hello world!")))
      (2, nil, Optional(ChronicleQueryTests.ESAttachment.Image(caption: "Blob", url: "https://example.com/blob.png")), Optional(ChronicleQueryTests.ESAttachment.Kind.image(ChronicleQueryTests.ESAttachment.Image(caption: "Blob", url: "https://example.com/blob.png"))))
      (3, nil, nil, nil)
      """
    }
  }

  /// The same for a column group (a struct): its members read as optional.
  @Test func aGroupsMembersOnTheNullableSideOfAnOuterJoin() throws {
    try fixture.database.write { db in
      try Note.insert {
        Note(id: 1, body: "first", timestamps: Timestamps(createdAt: Date(timeIntervalSince1970: 0), updatedAt: nil))
        Note(id: 2, body: "second", timestamps: Timestamps(createdAt: Date(timeIntervalSince1970: 86_400), updatedAt: nil))
      }.execute(db)
    }
    let query = Note
      .leftJoin(Note.as(ESNext.self).all) { $0.id.eq($1.id - 1) }
      .order { note, _ in note.id }
      .select { ($0.id, $1.timestamps.createdAt, $1.timestamps.updatedAt) }
    let rows = try fixture.database.read { db in try query.fetchAll(db) }
    assertInlineSnapshot(of: ([query.query.description] + rows.map { "\($0)" }).joined(separator: "\n"), as: .lines) {
      """
      SELECT "notes"."id", "eSNexts"."createdAt", "eSNexts"."updatedAt"
      FROM "notes"
      LEFT JOIN "notes" AS "eSNexts" ON ("notes"."id" = ("eSNexts"."id" - 1))
      ORDER BY "notes"."id"
      (1, Optional(1970-01-02 00:00:00 +0000), nil)
      (2, nil, nil)
      """
    }
  }

  @Test func aRowWithNoCaseIsAnErrorNamingTheCases() throws {
    try fixture.database.write { db in try db.execute(sql: "INSERT INTO esAttachments (id) VALUES (9)") }
    let error = #expect(throws: QueryDecodingError.self) { try fixture.database.read { db in try ESAttachment.all.fetchAll(db) } }
    assertInlineSnapshot(of: "\(error.map { "\($0)" } ?? "no error")", as: .lines) {
      """
      cannot decode column esAttachments.link: expected ESAttachment.Kind, found NULL (the columns of every case (link, note, image, tags) are NULL). Fix: store one case's value in the row, or declare the property optional (ESAttachment.Kind?).
      """
    }
  }
}
