import Foundation

/// A `Codable` value stored as JSON text: `@Column(as: [String].JSONRepresentation.self)`.
///
/// ```swift
/// @Table struct Item {
///   let id: Int
///   @Column(as: [String].JSONRepresentation.self) var tags: [String] = []
/// }
/// Item.insert { $0.tags } values: { ["home", "urgent"] }
/// // INSERT INTO "items" ("tags") VALUES ('["home","urgent"]')
/// ```
///
/// Keys are written sorted and without whitespace, so equal values are equal
/// text: a sync peer never sees a change where there is none. Dates inside
/// are written as a `Date` column writes them (`2026-01-31 12:00:00.000`).
/// A value JSON cannot hold (a NaN or an infinite Double) fails the
/// statement with the encoder's message; nothing is written.
public struct CodableJSONRepresentation<Value: Codable>: QueryBindable {
  public typealias QueryOutput = Value
  public var queryOutput: Value

  public init(queryOutput: Value) {
    self.queryOutput = queryOutput
  }

  public var queryBinding: QueryBinding {
    do {
      return .text(String(decoding: try JSONCoding.encoder().encode(queryOutput), as: UTF8.self))
    } catch {
      return .invalid("\(Value.self) has no JSON form: \(error)")
    }
  }

  public init(decoder: inout some QueryDecoder) throws {
    let probe = decoder
    let expected = "\(Value.self) (JSON)"
    guard let text = try decoder.decodeText(as: expected) else { throw probe.unexpectedNull(expected: expected) }
    do {
      let json = Data(text.utf8)
      if let rowsType = Value.self as? any JSONTableRows.Type,
        let rows = try rowsType.decodeRows(fromJSON: json), let rows = rows as? Value {
        queryOutput = rows
      } else if let rowType = Value.self as? any Table.Type,
        let row = try rowType.decodeRow(fromJSON: json), let row = row as? Value {
        queryOutput = row
      } else {
        queryOutput = try JSONCoding.decoder().decode(Value.self, from: json)
      }
    } catch let error as QueryDecodingError {
      throw error
    } catch {
      throw probe.mismatch(expected: expected, storage: "TEXT that decodes as one, not '\(text.prefix(200))' (\(error))")
    }
  }
}

extension CodableJSONRepresentation: Sendable where Value: Sendable {}

extension Decodable where Self: Encodable {
  /// This type stored as JSON text, for `@Column(as:)`.
  public typealias JSONRepresentation = CodableJSONRepresentation<Self>
}

/// Upstream's name for ``CodableJSONRepresentation``, as its tests and
/// signatures spell it (`SQLQueryExpression<_CodableJSONRepresentation<Trip>>`).
public typealias _CodableJSONRepresentation<Value: Codable> = CodableJSONRepresentation<Value>

extension Optional where Wrapped: Codable {
  /// An optional value stored as JSON text (NULL when nil).
  public typealias JSONRepresentation = CodableJSONRepresentation<Wrapped>?
}

/// The JSON coders of ``CodableJSONRepresentation``: sorted keys, dates as
/// `Date` columns store them.
enum JSONCoding {
  static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(SQLiteDateText.format(date))
    }
    return encoder
  }

  static func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSince1970: seconds) }
      let text = try container.decode(String.self)
      guard let date = SQLiteDateText.parse(text) else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a date like '2026-01-31 12:00:00.000'")
      }
      return date
    }
    return decoder
  }
}
