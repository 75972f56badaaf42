import Dependencies
import Foundation
import GRDB

/// Opens the app's Chronicle database where SQLiteData's `defaultDatabase`
/// opens its pool, for `appDatabase()` as SQLiteData apps write it:
///
/// ```swift
/// func appDatabase() throws -> any DatabaseWriter {
///   let database = try defaultDatabase()
///   var migrator = DatabaseMigrator()
///   migrator.registerMigration("Create reminders") { db in
///     try #sql("CREATE TABLE \"reminders\" (…) STRICT").execute(db)
///   }
///   try migrator.migrate(database)
///   return database
/// }
/// ```
///
/// - In the app (the `live` dependency context): `path`, or `SQLiteData.db`
///   in the Application Support folder, the file SQLiteData uses, so an app
///   that moves from SQLiteData opens its own file (and Chronicle adopts its
///   STRICT tables and their rows on that first open).
/// - In tests and previews: a new file in the temporary folder (`path` is ignored).
///
/// - Parameters:
///   - path: the SQLite file in the app; nil for the default above.
///   - configuration: GRDB settings of the connections (foreign keys are on
///     whatever it says; Chronicle's write capture needs them).
/// - Returns: a ``ChronicleDatabase``, as `any DatabaseWriter`.
public func defaultDatabase(path: String? = nil, configuration: Configuration = Configuration()) throws -> any DatabaseWriter {
  try Chronicle.defaultDatabase(path: path, configuration: configuration)
}

extension Chronicle {
  /// ``defaultDatabase(path:configuration:)``, spelled with the module's
  /// name as SQLiteData apps write `SQLiteData.defaultDatabase()`.
  public static func defaultDatabase(path: String? = nil, configuration: Configuration = Configuration()) throws -> any DatabaseWriter {
    var chronicle = ChronicleConfiguration()
    chronicle.database = configuration
    @Dependency(\.context) var context
    let file: String
    switch context {
    case .live:
      if let path {
        file = path
      } else {
        let folder = try FileManager.default.url(
          for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        file = folder.appendingPathComponent("SQLiteData.db").path
      }
    case .preview, .test:
      file = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).db").path
    }
    return try open(path: file, configuration: chronicle)
  }
}
