import Foundation

// UUIDs stored other than as lowercase text, for `@Column(as:)`.

extension UUID {
  /// A UUID stored as its 16 bytes (BLOB): half the size of the text form.
  public struct BytesRepresentation: QueryBindable, Hashable, Sendable {
    public var queryOutput: UUID

    public init(queryOutput: UUID) {
      self.queryOutput = queryOutput
    }

    public var queryBinding: QueryBinding {
      .blob(withUnsafeBytes(of: queryOutput.uuid) { Array($0) })
    }

    public init(decoder: inout some QueryDecoder) throws {
      let probe = decoder
      guard let bytes = try decoder.decodeBlob(as: "UUID (16 bytes)") else {
        throw probe.unexpectedNull(expected: "UUID (16 bytes)")
      }
      guard bytes.count == 16 else {
        throw probe.mismatch(expected: "UUID (16 bytes)", storage: "a BLOB of \(bytes.count) bytes")
      }
      var uuid = UUID().uuid
      withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: bytes) }
      queryOutput = UUID(uuid: uuid)
    }
  }

  /// A UUID stored as uppercase text (`DEADBEEF-…`), as Foundation's
  /// `uuidString` spells it.
  public struct UppercasedRepresentation: QueryBindable, Hashable, Sendable {
    public var queryOutput: UUID

    public init(queryOutput: UUID) {
      self.queryOutput = queryOutput
    }

    public var queryBinding: QueryBinding { .text(queryOutput.uuidString) }

    public init(decoder: inout some QueryDecoder) throws {
      queryOutput = try UUID(decoder: &decoder)
    }
  }

  /// A UUID stored as lowercase text: how a `UUID` column is stored without
  /// `@Column(as:)`, and how SQLite's `uuid()` writes them.
  public struct LowercasedRepresentation: QueryBindable, Hashable, Sendable {
    public var queryOutput: UUID

    public init(queryOutput: UUID) {
      self.queryOutput = queryOutput
    }

    public var queryBinding: QueryBinding { queryOutput.queryBinding }

    public init(decoder: inout some QueryDecoder) throws {
      queryOutput = try UUID(decoder: &decoder)
    }
  }
}

extension Optional where Wrapped == UUID {
  /// An optional UUID stored as 16 bytes.
  public typealias BytesRepresentation = UUID.BytesRepresentation?
  /// An optional UUID stored as uppercase text.
  public typealias UppercasedRepresentation = UUID.UppercasedRepresentation?
  /// An optional UUID stored as lowercase text.
  public typealias LowercasedRepresentation = UUID.LowercasedRepresentation?
}
