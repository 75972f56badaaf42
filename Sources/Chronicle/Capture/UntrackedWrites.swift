import GRDB

/// A tracked table lost its guard triggers (dropped by hand), so writes may
/// have bypassed Chronicle: no event carries them. Until they are adopted
/// (`chronicle adopt`) or discarded (`chronicle rebuild`), this peer does
/// not send its events, or peers would sync "successfully" and differ.
enum UntrackedWrites {
  /// The tables suspected, if any.
  static func suspectedTables(_ db: Database) throws -> [String] {
    guard let value = try ChronicleMeta(db: db).value(.untrackedWritesSuspected) else { return [] }
    return value.split(separator: "\n").map(String.init)
  }

  static func suspect(_ tables: [String], _ db: Database) throws {
    let all = Set(try suspectedTables(db) + tables).sorted()
    try ChronicleMeta(db: db).set(.untrackedWritesSuspected, to: all.joined(separator: "\n"))
  }

  static func clearSuspicion(_ db: Database) throws {
    try ChronicleMeta(db: db).remove(.untrackedWritesSuspected)
  }

  /// Whether guards were installed on this database before (so missing ones
  /// were removed, not never there: a database tracked before guards existed
  /// gets them on its first open, unsuspected).
  static func guardsWereInstalled(_ db: Database) throws -> Bool {
    try ChronicleMeta(db: db).value(.guardsInstalled) != nil
  }

  /// Records that guards are installed from now on (written once).
  static func recordGuardsInstalled(_ db: Database) throws {
    guard try !guardsWereInstalled(db) else { return }
    try ChronicleMeta(db: db).set(.guardsInstalled, to: "1")
  }
}
