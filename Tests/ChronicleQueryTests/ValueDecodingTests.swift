import Chronicle
import Foundation
import InlineSnapshotTesting
import Testing

/// A value stored by its description: `LosslessStringConvertible` and `QueryBindable`.
struct VDEmail: Equatable, LosslessStringConvertible, QueryBindable {
  var description: String
  init?(_ description: String) {
    guard description.contains("@") else { return nil }
    self.description = description
  }
}

enum VDPriority: Int, QueryBindable { case low = 1, medium, high }

@Table("vdCounters") struct VDCounter: Equatable {
  let id: Int
  var small: Int8
  var byte: UInt8
  var wide: UInt64
  var ratio: Float
}

/// Values of each type upstream's DecodingTests read, selected by `#sql`
/// and read back: every integer width, Float, a `LosslessStringConvertible`,
/// a raw-value enum, dates and UUIDs through their representations.
@Suite("Query builder: the values each Swift type reads back")
struct ValueDecodingTests {
  @Test func eachTypeReadsItsValue() throws {
    let fixture = try RemindersDatabase()
    let lines = try fixture.database.read { db -> [String] in
      [
        "\(try #sql("SELECT 0", as: Bool.self).fetchOne(db)!) \(try #sql("SELECT 1", as: Bool.self).fetchOne(db)!)",
        "\(try Values(#sql("3", as: Int8.self)).fetchOne(db)!) \(try Values(#sql("4", as: Int16.self)).fetchOne(db)!) \(try Values(#sql("5", as: Int32.self)).fetchOne(db)!)",
        "\(try Values(#sql("7", as: UInt8.self)).fetchOne(db)!) \(try Values(#sql("8", as: UInt16.self)).fetchOne(db)!) \(try Values(#sql("9", as: UInt32.self)).fetchOne(db)!) \(try Values(#sql("10", as: UInt64.self)).fetchOne(db)!)",
        "\(try Values(#sql("11.12", as: Float.self)).fetchOne(db)!)",
        "\(try Values(#sql("X'DEADBEEF'", as: [UInt8].self)).fetchOne(db)!)",
        "\(try Values(#sql("'support@example.com'", as: VDEmail.self)).fetchOne(db)!)",
        "\(try Values(#sql("3", as: VDPriority.self)).fetchOne(db)!) \(try Values(#sql("\(VDPriority.medium)", as: VDPriority.self)).fetchOne(db)!)",
        "\(try Values(#sql("1234567890", as: Date.UnixTimeRepresentation.self)).fetchOne(db)!.timeIntervalSince1970)",
        "\(try Values(#sql("2451910.5", as: Date.JulianDayRepresentation.self)).fetchOne(db)!.timeIntervalSinceReferenceDate)",
        "\(try Values(#sql("'DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF'", as: UUID.UppercasedRepresentation.self)).fetchOne(db)!)",
        "\(String(describing: try Values(#sql("X'DEADBEEFDEADBEEFDEADBEEFDEADBEEF'", as: UUID.BytesRepresentation?.self)).fetchOne(db)!))",
        "\(String(describing: try Values(#sql("NULL", as: Date.UnixTimeRepresentation?.self)).fetchOne(db)!))",
      ]
    }
    assertInlineSnapshot(of: lines.joined(separator: "\n"), as: .lines) {
      """
      false true
      3 4 5
      7 8 9 10
      11.12
      [222, 173, 190, 239]
      support@example.com
      high medium
      1234567890.0
      0.0
      DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF
      Optional(DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF)
      nil
      """
    }
    // SQLite 3.41 has unhex (Debian 12 has 3.40.1): the SQL only.
    assertInlineSnapshot(of: "deadbeef-dead-beef-dead-beefdeadbeef".unhex("-").cast(as: UUID.BytesRepresentation?.self).queryFragment.description, as: .lines) {
      """
      CAST(unhex('deadbeef-dead-beef-dead-beefdeadbeef', '-') AS BLOB)
      """
    }
  }

  @Test func valuesOutOfTheirTypesRangeFailNamingIt() throws {
    let fixture = try RemindersDatabase()
    try fixture.database.write { db in
      try db.execute(sql: #"CREATE TABLE "vdCounters" ("id" INTEGER PRIMARY KEY, "small" INTEGER NOT NULL, "byte" INTEGER NOT NULL, "wide" INTEGER NOT NULL, "ratio" REAL NOT NULL) STRICT"#)
      try VDCounter.insert { VDCounter(id: 1, small: -128, byte: 255, wide: UInt64(Int64.max), ratio: 0.5) }.execute(db)
    }
    #expect(try fixture.database.read { db in try VDCounter.all.fetchAll(db) } == [VDCounter(id: 1, small: -128, byte: 255, wide: UInt64(Int64.max), ratio: 0.5)])
    #expect {
      try fixture.database.read { db in try Values(#sql("300", as: UInt8.self)).fetchAll(db) }
    } throws: { "\($0)".contains("expected UInt8, found INTEGER (UInt8 is stored as INTEGER within UInt8's range, not 300)") }
    #expect {
      try fixture.database.read { db in try Values(#sql("'nobody'", as: VDEmail.self)).fetchAll(db) }
    } throws: { "\($0)".contains("TEXT that VDEmail(_:) reads, not 'nobody'") }
    // Too large for SQLite's INTEGER: the insert fails and writes nothing.
    #expect {
      try fixture.database.write { db in try VDCounter.insert { VDCounter(id: 2, small: 0, byte: 0, wide: .max, ratio: 0) }.execute(db) }
    } throws: { "\($0)".contains("larger than SQLite's INTEGER holds") }
    #expect(try fixture.database.read { db in try VDCounter.count().fetchOne(db) } == 1)
  }
}
