/// What a `@DatabaseFunction` that returns nothing gives SQL: NULL.
///
/// Such a function is called for what it does, as a statement of a trigger
/// body (`Values($handleStatusUpdate())`); its value reads back as `()`.
public struct NoResult: QueryBindable, Sendable {
  public typealias QueryOutput = Void

  public init(queryOutput: Void) {}
  public var queryOutput: Void { () }
  public var queryBinding: QueryBinding { .null }

  /// Reads past the one column, whatever it holds.
  public init(decoder: inout some QueryDecoder) throws { decoder.skip() }
}
