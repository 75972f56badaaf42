import Foundation
import Testing

import ChronicleTestSupport

@testable import Chronicle

/// Opens a Chronicle database in a temporary directory, with a reminders schema.
func makeDatabase(_ directory: TemporaryDirectory, name: String = "app.sqlite") throws -> ChronicleDatabase {
  try makeDatabase(path: directory.path(name))
}

/// Opens a Chronicle database at `path`, with a reminders schema.
func makeDatabase(path: String) throws -> ChronicleDatabase {
  let database = try Chronicle.open(path: path)
  try database.write { db in
    try db.execute(sql: """
      CREATE TABLE remindersLists (
        id TEXT PRIMARY KEY NOT NULL DEFAULT (uuid()),
        title TEXT NOT NULL DEFAULT '',
        position INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE TABLE reminders (
        id INTEGER PRIMARY KEY,
        title TEXT NOT NULL DEFAULT '',
        notes TEXT,
        isCompleted INTEGER NOT NULL DEFAULT 0,
        priority REAL,
        attachment BLOB,
        listID TEXT NOT NULL REFERENCES remindersLists(id) ON DELETE CASCADE
      ) STRICT;
      CREATE INDEX reminders_by_list ON reminders(listID);
      """)
  }
  return database
}

extension ChronicleDatabase {
  /// Number of events in the log.
  func eventCount() throws -> Int { try log.count() }

  /// The last event in the log.
  func lastEvent() throws -> ChangeEvent? { try log.events().last?.event }

  /// Replays the log into a fresh file and returns whether every table digest
  /// equals the live one; records an issue with both when not.
  func replayMatchesLive(_ directory: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
    let report = try replay(into: directory.path("replay-\(UUID().uuidString).sqlite"))
    let live = try digests()
    #expect(report.digests == live, "replayed digests differ from the live tables", sourceLocation: sourceLocation)
    return report.digests == live
  }
}

/// A plain GRDB connection to a database file (no capture), waiting for
/// locks a just-closed Chronicle database may still hold.
func plainConnection(_ path: String) throws -> DatabaseQueue {
  var configuration = Configuration()
  configuration.busyMode = .timeout(10)
  // Tests use it to change tables behind the log on purpose.
  configuration.prepareDatabase { db in db.bypassChronicleGuards() }
  return try DatabaseQueue(path: path, configuration: configuration)
}

/// How many rows' merge state a file keeps (`chronicle_rows` and `chronicle_integer_rows`).
func mergeStateCount(_ db: Database) throws -> Int {
  try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM chronicle_rows) + (SELECT count(*) FROM chronicle_integer_rows)") ?? 0
}

/// Removes what internal schema versions 8 to 11 added (membership history
/// and roles, refused events, routes, revocation checkpoints), as a file of
/// version 7 and before has it.
let version7MembershipTables = """
  DROP TABLE chronicle_route_wants;
  DROP TABLE chronicle_event_routes;
  DROP TABLE chronicle_refused_events;
  DROP TABLE chronicle_membership_events;
  ALTER TABLE chronicle_members DROP COLUMN role;
  ALTER TABLE chronicle_members DROP COLUMN invitation;
  ALTER TABLE chronicle_members DROP COLUMN revoked_checkpoints;
  ALTER TABLE chronicle_members DROP COLUMN demoted_after_sequence;
  ALTER TABLE chronicle_members DROP COLUMN demoted_checkpoints;
  """

/// Replaces Chronicle's merge-state tables with those of internal schema
/// version 4 and before (empty), as an older file has them.
let version4MergeStateTables = """
  ALTER TABLE chronicle_event_tables DROP COLUMN row_hashes;
  DROP TABLE chronicle_merge_names; DROP TABLE chronicle_merge_origins; DROP TABLE chronicle_rows; DROP TABLE chronicle_baseline_rows;
  DROP TABLE chronicle_integer_rows;
  CREATE TABLE chronicle_rows (
    table_name TEXT NOT NULL, row_key BLOB NOT NULL, clocks BLOB NOT NULL, deleted_hlc INTEGER,
    deleted_origin BLOB, retained BLOB, parked_reason TEXT, PRIMARY KEY (table_name, row_key)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX chronicle_rows_parked ON chronicle_rows (parked_reason) WHERE parked_reason IS NOT NULL;
  CREATE TABLE chronicle_baseline_rows (
    table_name TEXT NOT NULL, row_key BLOB NOT NULL, clocks BLOB NOT NULL, deleted_hlc INTEGER,
    deleted_origin BLOB, retained BLOB, parked_reason TEXT, PRIMARY KEY (table_name, row_key)
  ) STRICT, WITHOUT ROWID;

  """
