import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// A key of two columns, as SQLiteData's sync metadata keys its rows: a
/// `@Selection` type as the table's `id`.
@Table("ckMetadatas") struct CKMetadata: Identifiable, Equatable {
  let id: CKRecordKey
  var modifiedAt: Int
}

@Selection struct CKRecordKey: Hashable {
  let recordID: String
  let recordType: String
}

/// A row stored inside another's: a whole `@Table` row as an optional group.
@Table("ckStamped") struct CKStamped: Equatable {
  let id: Int
  var metadata: CKMetadata?
}

@Suite("Query builder: a primary key of several columns, and a row inside a row")
struct CompositeKeyTests {
  let fixture: RemindersDatabase
  let first = CKRecordKey(recordID: "a1", recordType: "reminders")
  let second = CKRecordKey(recordID: "a1", recordType: "lists")
  let third = CKRecordKey(recordID: "b2", recordType: "reminders")

  init() throws {
    fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: """
        CREATE TABLE ckMetadatas (
          recordID TEXT NOT NULL, recordType TEXT NOT NULL, modifiedAt INTEGER NOT NULL,
          PRIMARY KEY (recordID, recordType)
        ) STRICT;
        CREATE TABLE ckStamped (
          id INTEGER PRIMARY KEY, recordID TEXT, recordType TEXT, modifiedAt INTEGER
        ) STRICT;
        """)
      try CKMetadata.insert {
        CKMetadata(id: first, modifiedAt: 1)
        CKMetadata(id: second, modifiedAt: 2)
        CKMetadata(id: third, modifiedAt: 3)
      }.execute(db)
    }
  }

  @Test func rowsAreFoundByTheirWholeKey() throws {
    let output = try fixture.database.sqlAndRows(of: [
      CKMetadata.find(first).select(\.modifiedAt),
      CKMetadata.find([first, third]).order(by: \.modifiedAt).select(\.modifiedAt),
      CKMetadata.find([CKRecordKey]()).select(\.modifiedAt),
      CKMetadata.find(CKMetadata.where { $0.modifiedAt > 1 }.select(\.id)).order(by: \.modifiedAt).select(\.modifiedAt),
      CKMetadata.where { $0.id.eq(second) }.select { ($0.id.recordType, $0.count()) },
    ])
    assertInlineSnapshot(of: output, as: .lines) {
      """
      SELECT "ckMetadatas"."modifiedAt"
      FROM "ckMetadatas"
      WHERE (("ckMetadatas"."recordID", "ckMetadatas"."recordType") IN (('a1', 'reminders')))
        1
      SELECT "ckMetadatas"."modifiedAt"
      FROM "ckMetadatas"
      WHERE (("ckMetadatas"."recordID", "ckMetadatas"."recordType") IN (('a1', 'reminders'), ('b2', 'reminders')))
      ORDER BY "ckMetadatas"."modifiedAt"
        1
        3
      SELECT "ckMetadatas"."modifiedAt"
      FROM "ckMetadatas"
      WHERE 0
      SELECT "ckMetadatas"."modifiedAt"
      FROM "ckMetadatas"
      WHERE (("ckMetadatas"."recordID", "ckMetadatas"."recordType") IN (
        SELECT "ckMetadatas"."recordID", "ckMetadatas"."recordType"
        FROM "ckMetadatas"
        WHERE ("ckMetadatas"."modifiedAt" > 1)
      ))
      ORDER BY "ckMetadatas"."modifiedAt"
        2
        3
      SELECT "ckMetadatas"."recordType", count(CASE WHEN ("ckMetadatas"."recordID" IS NOT NULL) THEN json_array("ckMetadatas"."recordID", "ckMetadatas"."recordType") END)
      FROM "ckMetadatas"
      WHERE (("ckMetadatas"."recordID", "ckMetadatas"."recordType") = ('a1', 'lists'))
        ("lists", 1)
      """
    }
  }

  @Test func rowsAreWrittenByTheirWholeKey() throws {
    let changed = CKMetadata(id: second, modifiedAt: 20)
    let output = try fixture.database.sqlAndRows(of: [
      CKMetadata.update(changed),
      CKMetadata.find(third).update { $0.modifiedAt += 30 },
      CKMetadata.delete(CKMetadata(id: first, modifiedAt: 1)),
      CKMetadata.upsert { CKMetadata.Draft(CKMetadata(id: third, modifiedAt: 300)) },
      CKMetadata.order(by: \.modifiedAt),
    ])
    assertInlineSnapshot(of: output, as: .lines) {
      """
      UPDATE "ckMetadatas"
      SET "modifiedAt" = 20
      WHERE (("ckMetadatas"."recordID", "ckMetadatas"."recordType") = ('a1', 'lists'))
      UPDATE "ckMetadatas"
      SET "modifiedAt" = ("ckMetadatas"."modifiedAt" + 30)
      WHERE (("ckMetadatas"."recordID", "ckMetadatas"."recordType") IN (('b2', 'reminders')))
      DELETE FROM "ckMetadatas"
      WHERE (("ckMetadatas"."recordID", "ckMetadatas"."recordType") = ('a1', 'reminders'))
      INSERT INTO "ckMetadatas"
      ("recordID", "recordType", "modifiedAt")
      VALUES
      ('b2', 'reminders', 300)
      ON CONFLICT ("recordID", "recordType")
      DO UPDATE SET "modifiedAt" = excluded."modifiedAt"
      SELECT "ckMetadatas"."recordID", "ckMetadatas"."recordType", "ckMetadatas"."modifiedAt"
      FROM "ckMetadatas"
      ORDER BY "ckMetadatas"."modifiedAt"
        CKMetadata(id: ChronicleQueryTests.CKRecordKey(recordID: "a1", recordType: "lists"), modifiedAt: 20)
        CKMetadata(id: ChronicleQueryTests.CKRecordKey(recordID: "b2", recordType: "reminders"), modifiedAt: 300)
      """
    }
    let digestsMatch = try fixture.database.replay(into: fixture.directory.appendingPathComponent("replay.sqlite").path).digests
      == (try fixture.database.digests())
    #expect(digestsMatch)
    let error = #expect(throws: RowNotFound.self) { try fixture.database.read { db in try CKMetadata.find(db, key: first) } }
    #expect("\(String(describing: error))".contains("('a1', 'reminders')"), "\(String(describing: error))")
  }

  @Test func aRowInsideARowTakesItsTablesColumns() throws {
    let output = try fixture.database.sqlAndRows(of: [
      CKStamped.insert {
        CKStamped(id: 1, metadata: nil)
        CKStamped(id: 2, metadata: CKMetadata(id: third, modifiedAt: 3))
      },
      CKStamped.order(by: \.id),
      CKStamped.where { $0.metadata.is(nil) }.select(\.id),
      // An optional member left out of `Columns(…)` is NULL in each of its columns.
      Values(CKStamped.Columns(id: 7)),
    ])
    assertInlineSnapshot(of: output, as: .lines) {
      """
      INSERT INTO "ckStamped"
      ("id", "recordID", "recordType", "modifiedAt")
      VALUES
      (1, NULL, NULL, NULL), (2, 'b2', 'reminders', 3)
      SELECT "ckStamped"."id", "ckStamped"."recordID", "ckStamped"."recordType", "ckStamped"."modifiedAt"
      FROM "ckStamped"
      ORDER BY "ckStamped"."id"
        CKStamped(id: 1, metadata: nil)
        CKStamped(id: 2, metadata: Optional(ChronicleQueryTests.CKMetadata(id: ChronicleQueryTests.CKRecordKey(recordID: "b2", recordType: "reminders"), modifiedAt: 3)))
      SELECT "ckStamped"."id"
      FROM "ckStamped"
      WHERE (("ckStamped"."recordID", "ckStamped"."recordType", "ckStamped"."modifiedAt") IS (NULL, NULL, NULL))
        1
      SELECT 7 AS "id", NULL AS "recordID", NULL AS "recordType", NULL AS "modifiedAt"
        CKStamped(id: 7, metadata: nil)
      """
    }
  }
}
