/// A row operation by column names, as upcasters read and write it.
public struct UpcastRow: Sendable, Hashable {
  public var table: String
  public var kind: RowOperationKind
  /// The primary key (also among the values of an insert).
  public var key: [NamedValue]
  /// Every column of an insert; the changed columns of an update; none for a delete.
  public var values: [NamedValue]

  public init(table: String, kind: RowOperationKind, key: [NamedValue], values: [NamedValue]) {
    self.table = table
    self.kind = kind
    self.key = key
    self.values = values
  }
}

/// The app's code for the migration steps that code must do: value
/// conversions of a column whose type changed, and custom upcasters (a table
/// split or merged). Registered by name, because the log records names.
///
/// The same registry is needed by the migration itself, by a rebuild, and
/// by anything else that reads older events in the new shape.
public struct Upcasters: Sendable {
  /// Converts one value of a column.
  public typealias Conversion = @Sendable (SQLiteValue) throws -> SQLiteValue
  /// Maps one older row operation to the row operations it stands for now.
  public typealias Upcaster = @Sendable (UpcastRow) throws -> [UpcastRow]

  var conversions: [String: Conversion] = [:]
  var upcasters: [String: Upcaster] = [:]

  public init() {}

  /// Registers a value conversion under `name`.
  public mutating func registerConversion(_ name: String, _ conversion: @escaping Conversion) {
    conversions[name] = conversion
  }

  /// Registers a custom upcaster under `name`.
  public mutating func registerUpcaster(_ name: String, _ upcaster: @escaping Upcaster) {
    upcasters[name] = upcaster
  }

  func conversion(_ name: String) throws -> Conversion {
    guard let conversion = conversions[name] else { throw ChronicleError.missingUpcaster(name) }
    return conversion
  }

  func upcaster(_ name: String) throws -> Upcaster {
    guard let upcaster = upcasters[name] else { throw ChronicleError.missingUpcaster(name) }
    return upcaster
  }
}
