import Dependencies
import Foundation
import GRDB

extension DependencyValues {
  /// The database that ``FetchAll``, ``FetchOne`` and ``Fetch`` observe
  /// when they are not given one, and that the app reads with
  /// `@Dependency(\.defaultDatabase) var database`.
  ///
  /// Set it once, at launch, before anything reads it:
  ///
  /// ```swift
  /// prepareDependencies {
  ///   $0.defaultDatabase = try! appDatabase()
  /// }
  /// ```
  ///
  /// In tests, give each suite or test its own:
  /// `@Suite(.dependency(\.defaultDatabase, try makeDatabase()))`.
  ///
  /// It is `any DatabaseWriter`, as in SQLiteData, so that `appDatabase()`
  /// returns what ``defaultDatabase(path:configuration:)`` or
  /// ``Chronicle/open(path:tables:configuration:)`` opened; `write`
  /// on it appends the event of each transaction when it is a
  /// ``ChronicleDatabase`` (see ``ChronicleDatabase`` as a `DatabaseWriter`).
  /// A plain GRDB `DatabaseQueue` or `DatabasePool` works too, uncaptured.
  ///
  /// Reading it when it was never set gives an empty database in a new
  /// temporary folder; in an app (not in tests) it also reports an issue
  /// that names the fix. (Tests read it unset legitimately: the
  /// `.dependency` trait reads a value before it replaces it.)
  public var defaultDatabase: any DatabaseWriter {
    get { self[DefaultDatabaseKey.self] }
    set { self[DefaultDatabaseKey.self] = newValue }
  }
}

private enum DefaultDatabaseKey: DependencyKey {
  static var liveValue: any DatabaseWriter {
    reportIssue(
      """
      No default database is set: @Dependency(\\.defaultDatabase) was read before it was prepared. \
      Fix: call prepareDependencies { $0.defaultDatabase = try appDatabase() } once at launch, \
      or give the test a database with .dependency(\\.defaultDatabase, …). \
      An empty database in a temporary folder stands in for it.
      """)
    return standIn()
  }

  static var testValue: any DatabaseWriter { standIn() }

  private static func standIn() -> ChronicleDatabase {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-default-\(UUID().uuidString)")
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      return try Chronicle.open(path: folder.appendingPathComponent("default.sqlite").path)
    } catch {
      fatalError("Chronicle could not open a stand-in default database in \(folder.path): \(error)")
    }
  }
}

/// `@Dependency(\.defaultDatabase)`, for APIs whose database argument is optional.
var currentDefaultDatabase: any DatabaseWriter {
  @Dependency(\.defaultDatabase) var database
  return database
}
