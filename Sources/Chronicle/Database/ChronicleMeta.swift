import GRDB

/// Chronicle's own settings, kept in `chronicle_meta`: the one place that
/// reads or writes that table, each setting a typed ``Key``.
struct ChronicleMeta {
  let db: Database

  /// A setting: its name in `chronicle_meta` and the type of its value.
  struct Key<Value: DatabaseValueConvertible> {
    let name: String

    fileprivate init(_ name: String) { self.name = name }
  }

  /// Whether the file has `chronicle_meta` at all (one that Chronicle never
  /// opened has none).
  func exists() throws -> Bool {
    try db.tableExists("chronicle_meta")
  }

  /// The value of `key`; nil when it is not set.
  func value<Value>(_ key: Key<Value>) throws -> Value? {
    try Value.fetchOne(db.cachedStatement(sql: "SELECT value FROM chronicle_meta WHERE key = ?"), arguments: [key.name])
  }

  /// Whether `key` is set.
  func contains<Value>(_ key: Key<Value>) throws -> Bool {
    try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM chronicle_meta WHERE key = ?)"), arguments: [key.name])
      ?? false
  }

  /// Sets `key` to `value`, replacing what it was; nil stores NULL (the key
  /// is still set: see ``remove(_:)``).
  func set<Value>(_ key: Key<Value>, to value: Value?) throws {
    try db.cachedStatement(sql: "INSERT OR REPLACE INTO chronicle_meta (key, value) VALUES (?, ?)")
      .execute(arguments: [key.name, value])
  }

  /// Unsets `key`.
  func remove<Value>(_ key: Key<Value>) throws {
    try db.cachedStatement(sql: "DELETE FROM chronicle_meta WHERE key = ?").execute(arguments: [key.name])
  }

  // MARK: - Migrations

  /// Whether any migration was recorded (by ``ChronicleDatabase/migrate(_:upcasters:_:)``
  /// or a replay of one).
  func hasMigrations() throws -> Bool {
    try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM chronicle_meta WHERE key LIKE 'migration:%')") ?? false
  }

  /// Whether a migration was recorded at or before log position `position`
  /// (one a baseline through it holds; 0 for one that came with a clone's).
  func hasMigrations(through position: Int64) throws -> Bool {
    try Bool.fetchOne(
      db, sql: "SELECT EXISTS (SELECT 1 FROM chronicle_meta WHERE key LIKE 'migration:%' AND value <= ?)", arguments: [position]) ?? false
  }

  /// The names of the migrations recorded, in the order they ran.
  func migrationNames() throws -> [String] {
    try String.fetchAll(db, sql: "SELECT substr(key, 11) FROM chronicle_meta WHERE key LIKE 'migration:%' ORDER BY value, key")
  }
}

extension ChronicleMeta.Key where Value == Int {
  /// The version of Chronicle's own tables (``InternalSchema``).
  static var internalSchemaVersion: Self { Self("schema_version") }
}

extension ChronicleMeta.Key where Value == Int64 {
  /// The version of the application schema last recorded in an event.
  static var loggedSchemaVersion: Self { Self("logged_schema_version") }
  /// The log position through which the merge state has folded every event.
  static var mergeFoldedThrough: Self { Self("merge_folded_through") }
  /// Set (to 1) while received events past ``mergeFoldedThrough`` are in
  /// the merge state already: they were merged ahead of local history not
  /// folded yet (every one newer than it), and folding that history reads
  /// only this peer's events. Removed once the fold catches up.
  static var receivedMergedPastFoldMark: Self { Self("received_merged_past_fold_mark") }
  /// What folds limited to the rows a merge received (``TouchedRowFold``)
  /// have cost since the last fold of whole events, in events folded's
  /// worth: once it comes near what such a fold would cost, the next merge
  /// folds whole.
  static var rowFoldCost: Self { Self("row_fold_cost") }
  /// The log position through which this device's events are signed.
  static var sealedThrough: Self { Self("sealed_through") }
  /// The schema epoch a clone starts at (its source's).
  static var epochFloor: Self { Self("epoch_floor") }
  /// A migration that ran: the log position of its event (0 when it came
  /// with a baseline).
  static func migration(_ name: String) -> Self { Self("migration:\(name)") }
  /// In a rebuild's shadow file: the log position applied so far, and that
  /// event's checksum (to tell the same log from another).
  static var rebuildThrough: Self { Self("rebuild_through") }
  static var rebuildThroughChecksum: Self { Self("rebuild_through_checksum") }
}

extension ChronicleMeta.Key where Value == String {
  /// Tracked tables whose guard triggers were found missing, one per line.
  static var untrackedWritesSuspected: Self { Self("untracked_writes_suspected") }
  /// Set once guard triggers were installed on this database.
  static var guardsInstalled: Self { Self("guards_installed") }
  /// In a rebuild's shadow file: the schema and peer it was made for.
  static var rebuildFingerprint: Self { Self("rebuild_fingerprint") }
  /// A version vector the log had reached (``VersionVector/description``
  /// form), saved by the transaction that appended its events: where
  /// reading the vector starts (see ``VersionVector/read(_:)``).
  static var vectorCheckpoint: Self { Self("vector_checkpoint") }
  /// This peer's sequences folded into merge state past
  /// ``mergeFoldedThrough`` (``FoldMarks/ownSequences``), as `low-high`
  /// ranges separated by commas.
  static var ownFoldedPastMark: Self { Self("own_folded_past_mark") }
}
