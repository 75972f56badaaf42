/// A `RawRepresentable` value stored as its raw value, for `@Column(as:)`:
/// `Priority.RawRepresentation` stores a `Priority` without the enum itself
/// conforming to ``QueryBindable``.
///
/// ```swift
/// enum Priority: Int { case low, medium, high }
///
/// @Table
/// struct Reminder {
///   let id: Int
///   @Column(as: Priority.RawRepresentation.self)
///   var priority: Priority
///   @Column(as: Priority?.RawRepresentation.self)
///   var fallback: Priority?
/// }
/// ```
///
/// A stored raw value that names no case fails to decode with a
/// ``QueryDecodingError`` that names the column and the value.
public struct RawValueRepresentation<QueryOutput: RawRepresentable>: QueryBindable
where QueryOutput.RawValue: QueryBindable {
  public var queryOutput: QueryOutput

  public init(queryOutput: QueryOutput) {
    self.queryOutput = queryOutput
  }

  public var queryBinding: QueryBinding { queryOutput.rawValue.queryBinding }

  public init(decoder: inout some QueryDecoder) throws {
    let probe = decoder
    let raw = try QueryOutput.RawValue(decoder: &decoder)
    guard let value = QueryOutput(rawValue: raw) else {
      throw probe.mismatch(expected: "\(QueryOutput.self)", storage: "one of its raw values, not \(raw)")
    }
    queryOutput = value
  }
}

extension RawValueRepresentation: Equatable where QueryOutput: Equatable {}
extension RawValueRepresentation: Hashable where QueryOutput: Hashable {}
extension RawValueRepresentation: Sendable where QueryOutput: Sendable {}

extension RawRepresentable where RawValue: QueryBindable {
  /// This type stored as its raw value: `@Column(as: Priority.RawRepresentation.self)`.
  public typealias RawRepresentation = RawValueRepresentation<Self>
}

extension Optional where Wrapped: RawRepresentable, Wrapped.RawValue: QueryBindable {
  /// An optional value stored as its raw value, or NULL.
  public typealias RawRepresentation = RawValueRepresentation<Wrapped>?
}
