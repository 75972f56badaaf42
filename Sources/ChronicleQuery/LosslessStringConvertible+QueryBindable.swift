/// A `LosslessStringConvertible` type that declares `QueryBindable` is
/// stored as its description, TEXT, and read back through `init?(_:)`
/// (`struct Email: LosslessStringConvertible, QueryBindable`). Text it
/// cannot read fails to decode, naming the text.
extension QueryBindable where Self: LosslessStringConvertible {
  public var queryBinding: QueryBinding { .text(description) }

  public init(decoder: inout some QueryDecoder) throws {
    let probe = decoder
    let name = String(describing: Self.self)
    guard let text = try decoder.decodeText(as: name) else { throw decoder.unexpectedNull(expected: name) }
    guard let value = Self(text) else {
      throw probe.mismatch(expected: name, storage: "TEXT that \(name)(_:) reads, not '\(text)'")
    }
    self = value
  }
}
