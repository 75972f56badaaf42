import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

// Types of an app's own, stored in columns, written as SQLiteData apps
// write them: `init(decoder: inout some QueryDecoder)` reading through a
// type they are stored as, upstream's binding names, typed throws.

/// A color stored as one integer, `0xRRGGBBAA`.
struct PackedColor: QueryBindable, Equatable {
  var red: Int, green: Int, blue: Int, alpha: Int
  var queryBinding: QueryBinding { .int(Int64(red << 24 | green << 16 | blue << 8 | alpha)) }
  init(red: Int, green: Int, blue: Int, alpha: Int = 0xFF) {
    (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
  }
  init(decoder: inout some QueryDecoder) throws {
    // Upstream's spelling: `decode` gives nil for a NULL.
    guard let packed = try decoder.decode(Int.self) else { throw QueryDecodingError.missingRequiredColumn }
    self.init(red: packed >> 24 & 0xFF, green: packed >> 16 & 0xFF, blue: packed >> 8 & 0xFF, alpha: packed & 0xFF)
  }
}

/// A `String` stored in upper case, as a representation: `@Column(as: Shouting.self)`.
struct Shouting: QueryBindable {
  var queryOutput: String
  init(queryOutput: String) { self.queryOutput = queryOutput }
  var queryBinding: QueryBinding { .text(queryOutput.uppercased()) }
  init(decoder: inout some QueryDecoder) throws(QueryDecodingError) {
    // Typed throws, and upstream's error for a NULL.
    guard let text = try? String?(decoder: &decoder) else { throw .missingRequiredColumn }
    self.init(queryOutput: text.lowercased())
  }
}

@Table("cdLabels") struct CDLabel: Equatable {
  let id: Int
  var color: PackedColor
  @Column(as: Shouting.self)
  var caption: String
}

@Suite("Query builder: an app's own column types, written as upstream's users write them")
struct CustomDecodableTests {
  func makeFixture() throws -> RemindersDatabase {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: #"CREATE TABLE "cdLabels" ("id" INTEGER PRIMARY KEY, "color" INTEGER NOT NULL, "caption" TEXT) STRICT"#)
    }
    return fixture
  }

  @Test func valuesAreWrittenAndReadThroughTheTypesTheyAreStoredAs() throws {
    let fixture = try makeFixture()
    let statements: [any QueryStatement] = [
      CDLabel.insert {
        CDLabel(id: 1, color: PackedColor(red: 0x12, green: 0x34, blue: 0x56), caption: "hello")
        CDLabel(id: 2, color: PackedColor(red: 0, green: 0, blue: 0, alpha: 0), caption: "quiet")
      },
      CDLabel.order(by: \.id),
      CDLabel.where { $0.color.eq(PackedColor(red: 0, green: 0, blue: 0, alpha: 0)) }.select(\.caption),
    ]
    assertInlineSnapshot(of: try fixture.database.sqlAndRows(of: statements), as: .lines) {
      """
      INSERT INTO "cdLabels"
      ("id", "color", "caption")
      VALUES
      (1, 305420031, 'HELLO'), (2, 0, 'QUIET')
      SELECT "cdLabels"."id", "cdLabels"."color", "cdLabels"."caption"
      FROM "cdLabels"
      ORDER BY "cdLabels"."id"
        CDLabel(id: 1, color: ChronicleQueryTests.PackedColor(red: 18, green: 52, blue: 86, alpha: 255), caption: "hello")
        CDLabel(id: 2, color: ChronicleQueryTests.PackedColor(red: 0, green: 0, blue: 0, alpha: 0), caption: "quiet")
      SELECT "cdLabels"."caption"
      FROM "cdLabels"
      WHERE ("cdLabels"."color" = 0)
        quiet
      """
    }
  }

  @Test func aNullTheTypeRefusesFailsNamingTheFix() throws {
    let fixture = try makeFixture()
    try fixture.database.write { db in try db.execute(sql: #"INSERT INTO "cdLabels" VALUES (3, 255, NULL)"#) }
    #expect {
      try fixture.database.read { db in try CDLabel.all.fetchAll(db) }
    } throws: { error in
      "\(error)" == "cannot decode column (a column read by init(decoder:)): expected a value, found NULL. Fix: declare the property optional, or the column NOT NULL."
    }
  }

  @Test func decodeGivesNilForANullAndTheTypeRefusesItInItsOwnWords() throws {
    let fixture = try makeFixture()
    #expect {
      try fixture.database.read { db in try Values(#sql("NULL", as: PackedColor.self)).fetchOne(db) }
    } throws: { error in
      "\(error)" == "cannot decode column (a column read by init(decoder:)): expected a value, found NULL. Fix: declare the property optional, or the column NOT NULL."
    }
    let optional = try fixture.database.read { db in try Values(#sql("NULL", as: PackedColor?.self)).fetchOne(db) }
    #expect(optional == .some(nil))
  }

  @Test func upstreamsBindingNamesMakeTheSameBindings() {
    let day = Date(timeIntervalSince1970: 86_400)
    let id = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!
    #expect(QueryBinding.int(7) == .integer(7))
    #expect(QueryBinding.bool(true) == .integer(1))
    #expect(QueryBinding.date(day) == .text("1970-01-02 00:00:00.000"))
    #expect(QueryBinding.uuid(id) == .text("6f9619ff-8b86-d011-b42d-00c04fc964ff"))
    struct Unencodable: Error, CustomStringConvertible { var description: String { "no encoding for this value" } }
    #expect(QueryBinding.invalid(Unencodable()) == .invalid("no encoding for this value"))
  }
}
