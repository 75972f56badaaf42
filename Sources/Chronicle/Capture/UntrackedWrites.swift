import GRDB

/// A tracked table lost its guard triggers (dropped by hand), so writes may
/// have bypassed Chronicle: no event carries them. Until they are adopted
/// (`chronicle adopt`) or discarded (`chronicle rebuild`), this peer does
/// not send its events, or peers would sync "successfully" and differ.
enum UntrackedWrites {
  static let suspicionKey = "untracked_writes_suspected"
  static let guardedKey = "guards_installed"

  /// The tables suspected, if any.
  static func suspectedTables(_ db: Database) throws -> [String] {
    guard let value = try String.fetchOne(db, sql: "SELECT value FROM chronicle_meta WHERE key = ?", arguments: [suspicionKey]) else { return [] }
    return value.split(separator: "\n").map(String.init)
  }

  static func suspect(_ tables: [String], _ db: Database) throws {
    let all = Set(try suspectedTables(db) + tables).sorted()
    try db.execute(sql: "INSERT OR REPLACE INTO chronicle_meta (key, value) VALUES (?, ?)", arguments: [suspicionKey, all.joined(separator: "\n")])
  }

  static func clearSuspicion(_ db: Database) throws {
    try db.execute(sql: "DELETE FROM chronicle_meta WHERE key = ?", arguments: [suspicionKey])
  }

  /// Whether guards were installed on this database before (so missing ones
  /// were removed, not never there: a database tracked before guards existed
  /// gets them on its first open, unsuspected).
  static func guardsWereInstalled(_ db: Database) throws -> Bool {
    try String.fetchOne(db, sql: "SELECT value FROM chronicle_meta WHERE key = ?", arguments: [guardedKey]) != nil
  }

  /// Records that guards are installed from now on (written once).
  static func recordGuardsInstalled(_ db: Database) throws {
    guard try !guardsWereInstalled(db) else { return }
    try db.execute(sql: "INSERT INTO chronicle_meta (key, value) VALUES (?, '1')", arguments: [guardedKey])
  }
}
