import Foundation
import GRDB
import GRDBSQLite

extension Database {
  /// Registers an aggregate `@DatabaseFunction` on this connection (it
  /// replaces one of the same name and argument count). Do it in
  /// `Configuration.prepareDatabase` so that every connection has it.
  ///
  /// The function value itself is registered, so an instance method's
  /// `$name` calls the instance it was made from (GRDB's aggregates are
  /// made from a type, which has no instance to call).
  public func add<F: AggregateDatabaseFunction>(function: F) {
    let registration = Unmanaged.passRetained(RegisteredAggregate(function)).toOpaque()
    var flags = SQLITE_UTF8
    if function.isDeterministic { flags |= SQLITE_DETERMINISTIC }
    // On failure SQLite calls the destructor itself; a later call then
    // fails with SQLite's "no such function" naming it.
    _ = sqlite3_create_function_v2(
      sqliteConnection, function.name, Int32(function.argumentCount), flags, registration, nil,
      { context, count, values in RegisteredAggregate.step(context, count, values) },
      { context in RegisteredAggregate.finish(context) },
      { registration in registration.map { Unmanaged<RegisteredAggregate>.fromOpaque($0).release() } })
  }
}

/// An aggregate function as SQLite holds it (its user data): makes one
/// evaluation per group, which keeps the group's values until SQLite asks
/// for the result.
private final class RegisteredAggregate {
  let makeEvaluation: () -> AggregateEvaluation

  init<F: AggregateDatabaseFunction>(_ function: F) {
    makeEvaluation = { AggregateEvaluation(function) }
  }

  /// SQLite's `xStep`: the group's evaluation (made on its first row, kept
  /// in SQLite's aggregate context) takes one row's arguments.
  static func step(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let slot = sqlite3_aggregate_context(context, Int32(MemoryLayout<UnsafeMutableRawPointer?>.stride)) else {
      sqlite3_result_error_nomem(context)
      return
    }
    let stored = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    let evaluation: AggregateEvaluation
    if let pointer = stored.pointee {
      evaluation = Unmanaged<AggregateEvaluation>.fromOpaque(pointer).takeUnretainedValue()
    } else {
      evaluation = registration(context).makeEvaluation()
      stored.pointee = Unmanaged.passRetained(evaluation).toOpaque()
    }
    let arguments = (0..<Int(count)).map { databaseValue(values?[$0]) }
    do {
      try evaluation.step(arguments)
    } catch {
      sqlite3_result_error(context, "\(error)", -1)
    }
  }

  /// SQLite's `xFinal`: the group's result (or that of no rows at all),
  /// and the evaluation released, whether or not a step failed.
  static func finish(_ context: OpaquePointer?) {
    let slot = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    let evaluation: AggregateEvaluation
    if let pointer = slot?.pointee {
      evaluation = Unmanaged<AggregateEvaluation>.fromOpaque(pointer).takeRetainedValue()
      slot?.pointee = nil
    } else {
      evaluation = registration(context).makeEvaluation()
    }
    do {
      setResult(context, try evaluation.finish())
    } catch {
      sqlite3_result_error(context, "\(error)", -1)
    }
  }

  private static func registration(_ context: OpaquePointer?) -> RegisteredAggregate {
    Unmanaged<RegisteredAggregate>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
  }
}

/// One group's evaluation: the values of its rows so far.
private final class AggregateEvaluation {
  let step: ([DatabaseValue]) throws -> Void
  let finish: () throws -> DatabaseValue

  init<F: AggregateDatabaseFunction>(_ function: F) {
    var elements: [F.Element] = []
    step = { values in
      var decoder = SQLiteQueryDecoder(arguments: values, function: function.name)
      elements.append(try function.step(&decoder))
    }
    finish = { try resultValue(of: F.Output.self, function.finalize(elements), function: function.name) }
  }
}

/// An argument SQLite passed, as GRDB's value.
private func databaseValue(_ value: OpaquePointer?) -> DatabaseValue {
  switch sqlite3_value_type(value) {
  case SQLITE_INTEGER: return sqlite3_value_int64(value).databaseValue
  case SQLITE_FLOAT: return sqlite3_value_double(value).databaseValue
  case SQLITE_TEXT:
    guard let text = sqlite3_value_text(value) else { return "".databaseValue }
    let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
    return String(decoding: bytes, as: UTF8.self).databaseValue
  case SQLITE_BLOB:
    guard let blob = sqlite3_value_blob(value) else { return Data().databaseValue }
    return Data(bytes: blob, count: Int(sqlite3_value_bytes(value))).databaseValue
  default: return .null
  }
}

/// Returns `value` to SQLite as the function's result.
private func setResult(_ context: OpaquePointer?, _ value: DatabaseValue) {
  let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
  switch value.storage {
  case .null: sqlite3_result_null(context)
  case .int64(let integer): sqlite3_result_int64(context, integer)
  case .double(let double): sqlite3_result_double(context, double)
  case .string(let string):
    // The length keeps NUL characters inside the text.
    string.withCString { sqlite3_result_text(context, $0, Int32(string.utf8.count), transient) }
  case .blob(let data) where data.isEmpty:
    sqlite3_result_zeroblob(context, 0)
  case .blob(let data):
    data.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), transient) }
  }
}
