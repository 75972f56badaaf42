import Chronicle
import Foundation
import Testing

@Table private struct QERow {
  let id: Int
  var title = ""
  var score = 0.0
  var note: String?
}

@Table private struct QEReading {
  let id: Int
  @Column(as: [Double].JSONRepresentation.self)
  var samples: [Double] = []
}

@Selection private struct QESize {
  var width = 0
  var height = 0
}

@Table private struct QEPhoto {
  let id: Int
  var size: QESize = QESize()
  var thumbnail: QESize?
  var takenAt: Date?
  var isPublic = false
}

private enum QEStatus: String, QueryBindable { case draft, published }

@Table private struct QEPost {
  let id: UUID
  var status: QEStatus = .draft
  @Column(as: [String].JSONRepresentation.self)
  var tags: [String] = []
}

/// Names each value with the columns it came through, as a keyed format's
/// encoder would.
private struct ColumnLog: QueryEncoder {
  var names: [[String]] = []
  var values: [String] = []

  mutating func encode(_ value: [UInt8]) { values.append("blob \(value)") }
  mutating func encode(_ value: Bool) { values.append("bool \(value)") }
  mutating func encode(_ value: Date) { values.append("date \(value.timeIntervalSince1970)") }
  mutating func encode(_ value: Double) { values.append("double \(value)") }
  mutating func encode(_ value: Int) { values.append("int \(value)") }
  mutating func encode(_ value: Int64) { values.append("int64 \(value)") }
  mutating func encode(_ value: String) { values.append("text \(value)") }
  mutating func encode(_ value: UInt64) { values.append("uint64 \(value)") }
  mutating func encode(_ value: UUID) { values.append("uuid \(value.uuidString)") }
  mutating func encodeNull() { values.append("NULL") }

  mutating func encode<Column: _TableColumnExpression>(
    _ column: @autoclosure () -> Column,
    _ value: Column.Value.QueryOutput
  ) throws(QueryEncodingError) where Column.Value: QueryEncodable {
    names.append(column()._names)
    try Column.Value(queryOutput: value).encode(to: &self)
  }
}

/// Only the values: the protocol's default for columns.
private struct ValueLog: QueryEncoder {
  var values: [String] = []
  mutating func encode(_ value: [UInt8]) { values.append("\(value)") }
  mutating func encode(_ value: Bool) { values.append("\(value)") }
  mutating func encode(_ value: Date) { values.append("\(value.timeIntervalSince1970)") }
  mutating func encode(_ value: Double) { values.append("\(value)") }
  mutating func encode(_ value: Int) { values.append("\(value)") }
  mutating func encode(_ value: Int64) { values.append("\(value)") }
  mutating func encode(_ value: String) { values.append(value) }
  mutating func encode(_ value: UInt64) { values.append("\(value)") }
  mutating func encode(_ value: UUID) { values.append(value.uuidString) }
  mutating func encodeNull() { values.append("NULL") }
}

@Suite("Query builder: QueryEncoder takes rows apart column by column")
struct QueryEncoderTests {
  @Test func columnsInDeclarationOrder() throws {
    var log = ColumnLog()
    try QERow(id: 1, title: "Hi", score: 0.5, note: nil).encode(to: &log)
    #expect(log.names == [["id"], ["title"], ["score"], ["note"]])
    #expect(log.values == ["int 1", "text Hi", "double 0.5", "NULL"])
  }

  @Test func aGroupIsOneColumnAndThenEachOfItsOwn() throws {
    var log = ColumnLog()
    try QEPhoto(id: 1, size: QESize(width: 800, height: 600), thumbnail: nil, takenAt: Date(timeIntervalSince1970: 60), isPublic: true)
      .encode(to: &log)
    #expect(log.names == [["id"], ["width", "height"], ["width"], ["height"], ["width", "height"], ["takenAt"], ["isPublic"]])
    #expect(log.values == ["int 1", "int 800", "int 600", "NULL", "NULL", "date 60.0", "bool true"])

    var present = ValueLog()
    try QEPhoto(id: 2, size: QESize(width: 1, height: 2), thumbnail: QESize(width: 3, height: 4), takenAt: nil).encode(to: &present)
    #expect(present.values == ["2", "1", "2", "3", "4", "NULL", "false"])
  }

  @Test func enumsAndRepresentationsAsTheyAreBound() throws {
    var log = ColumnLog()
    let id = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    try QEPost(id: id, status: .published, tags: ["a", "b"]).encode(to: &log)
    #expect(log.names == [["id"], ["status"], ["tags"]])
    #expect(log.values == ["uuid 00000000-0000-0000-0000-000000000001", "text published", #"text ["a","b"]"#])
  }

  @Test func aValueJSONCannotHoldIsAnError() {
    var log = ValueLog()
    #expect(throws: QueryEncodingError.self) {
      try QEReading(id: 1, samples: [.nan]).encode(to: &log)
    }
  }

  @Test func aTableSelectionIsARow() throws {
    var log = ColumnLog()
    try CommentThread(id: 7, body: "Hi", depth: 2).encode(to: &log)
    #expect(log.names == [["id"], ["body"], ["depth"]])
    #expect(log.values == ["int 7", "text Hi", "int 2"])
  }
}

