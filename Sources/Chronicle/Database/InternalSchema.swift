import GRDB

/// Chronicle's own tables, by schema version. The text of each migration is
/// the file of the same number in `Schemas/` (a test checks they are equal).
enum InternalSchema {
  /// (version, SQL) in order.
  static let migrations: [(version: Int, sql: String)] = [
    (1, """
-- Chronicle core schema, version 1.
-- Chronicle's own tables live in the application's database file, beside the
-- tables they describe, so that a write and its event commit atomically.
-- All are STRICT. Names starting with chronicle_ are reserved.

-- Key/value settings of Chronicle itself (schema version, ...).
CREATE TABLE chronicle_meta (
  key TEXT PRIMARY KEY NOT NULL,
  value ANY
) STRICT;

-- This peer: exactly one row.
CREATE TABLE chronicle_peer (
  singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
  peer_id BLOB NOT NULL CHECK (length(peer_id) = 16),
  created_at TEXT NOT NULL
) STRICT;
-- The clock and the schema epoch are not stored here: they are read from the
-- log when the database opens (the highest HLC of any event; the epoch of this
-- peer's last event), so an append writes no page besides the log's own.

-- The event log: one row per write transaction, local or received.
CREATE TABLE chronicle_events (
  -- Position in this file's log (local order of arrival).
  id INTEGER PRIMARY KEY NOT NULL,
  origin BLOB NOT NULL CHECK (length(origin) = 16),
  sequence INTEGER NOT NULL CHECK (sequence > 0),
  -- Hybrid logical clock: milliseconds << 16 | counter.
  hlc INTEGER NOT NULL,
  schema_epoch INTEGER NOT NULL,
  format_version INTEGER NOT NULL,
  -- The serialized event (Schemas/EVENT-FORMAT.md): header, zlib body, CRC-32.
  payload BLOB NOT NULL,
  -- Body bytes before compression.
  raw_size INTEGER NOT NULL,
  -- Bytes of payload.
  stored_size INTEGER NOT NULL,
  -- The CRC-32 that ends payload, for quick verification.
  checksum INTEGER NOT NULL,
  -- Number of row operations in the event.
  row_changes INTEGER NOT NULL,
  UNIQUE (origin, sequence)
) STRICT;

CREATE INDEX chronicle_events_by_hlc ON chronicle_events (hlc);

-- Which events change which table, to read the log by table.
CREATE TABLE chronicle_event_tables (
  table_name TEXT NOT NULL,
  -- chronicle_events.id (the log is append-only: no cascade needed).
  event_id INTEGER NOT NULL,
  PRIMARY KEY (table_name, event_id)
) STRICT, WITHOUT ROWID;

-- Tables whose writes are captured.
CREATE TABLE chronicle_tracked_tables (
  name TEXT PRIMARY KEY NOT NULL,
  -- The event that started tracking (created or adopted the table).
  since_event INTEGER NOT NULL
) STRICT;

-- Merge state of synced rows (Sync/, see Schemas/SYNC-PROTOCOL.md): one row
-- per application row that any event wrote. Kept up to date from the log
-- lazily, when a sync applies remote events, so local writes pay nothing.
CREATE TABLE chronicle_rows (
  table_name TEXT NOT NULL,
  -- The primary key, encoded as event values.
  row_key BLOB NOT NULL,
  -- Per-column versions, packed: distinct (HLC, origin) pairs, then each
  -- column's name and the index of its version.
  clocks BLOB NOT NULL,
  -- Version of the latest delete (a tombstone), if any: the row is live when
  -- some column version is newer.
  deleted_hlc INTEGER,
  deleted_origin BLOB CHECK (deleted_origin IS NULL OR length(deleted_origin) = 16),
  -- Column values of a row that is not in its table: deleted (kept so that
  -- a later write resurrects it whole) or parked (see parked_reason).
  retained BLOB,
  -- Why a live row is not in its table: 'incomplete' (an update arrived
  -- before the row's insert) or 'parent' (a foreign key's parent is absent).
  parked_reason TEXT,
  PRIMARY KEY (table_name, row_key)
) STRICT, WITHOUT ROWID;

CREATE INDEX chronicle_rows_parked ON chronicle_rows (parked_reason) WHERE parked_reason IS NOT NULL;

-- The application's schema as the log last recorded it, to find what a
-- write changed (and what changed while Chronicle was not looking).
CREATE TABLE chronicle_schema (
  position INTEGER PRIMARY KEY NOT NULL,
  type TEXT NOT NULL,
  name TEXT NOT NULL,
  table_name TEXT NOT NULL,
  root_page INTEGER NOT NULL,
  sql TEXT NOT NULL,
  -- JSON array of the column names (tables only).
  columns TEXT NOT NULL
) STRICT;
"""),
    (2, """
-- Chronicle core schema, version 2: compaction baselines.
-- When the events up to a log position are pruned (chronicle compact), the
-- state they led to is kept here: replay, verify, rebuild and new peers
-- start from it, then take the events after it.

CREATE TABLE chronicle_baseline (
  singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
  -- Log position of the last pruned event.
  through_position INTEGER NOT NULL,
  -- The version vector the pruned events covered (peer:sequence,...).
  vector TEXT NOT NULL,
  -- Highest clock reading of the pruned events.
  hlc INTEGER NOT NULL,
  -- Schema epoch of this peer's last pruned event.
  schema_epoch INTEGER NOT NULL,
  -- The schema, the recorded migrations and every row of the tracked
  -- tables, as one serialized event (Schemas/EVENT-FORMAT.md).
  payload BLOB NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

-- The merge state of the baseline's rows: chronicle_rows as it was then.
CREATE TABLE chronicle_baseline_rows (
  table_name TEXT NOT NULL,
  row_key BLOB NOT NULL,
  clocks BLOB NOT NULL,
  deleted_hlc INTEGER,
  deleted_origin BLOB CHECK (deleted_origin IS NULL OR length(deleted_origin) = 16),
  retained BLOB,
  parked_reason TEXT,
  PRIMARY KEY (table_name, row_key)
) STRICT, WITHOUT ROWID;
"""),
    (3, """
-- Chronicle core schema, version 3: device identity.
-- Every device (peer) signs the events it writes with its own Ed25519 key
-- (Schemas/EVENT-FORMAT.md, version 2). The private key is never stored here:
-- it lives in a file beside the database (DATABASE-device.key, mode 600), so a
-- copied database file does not carry it.

-- The public key of each device whose signed events this log holds, this
-- device's own included. A peer id derived from its key (UUID version 8) needs
-- no row to be checked; a peer id from before device keys (a random UUID) is
-- bound to the key of its first signed event, and from that event on every
-- event of that origin must be signed with that key.
CREATE TABLE chronicle_devices (
  peer_id BLOB PRIMARY KEY NOT NULL CHECK (length(peer_id) = 16),
  public_key BLOB NOT NULL CHECK (length(public_key) = 32),
  -- The sequence of the first event this device signed: its earlier events
  -- (written before it had a key) may be unsigned, its later ones may not.
  first_signed_sequence INTEGER NOT NULL CHECK (first_signed_sequence > 0)
) STRICT;

-- The group this database belongs to, once it created or joined one (or
-- received the events of one): from then on it accepts events only from the
-- group's members.
CREATE TABLE chronicle_group (
  singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
  group_id BLOB NOT NULL CHECK (length(group_id) = 16),
  -- The device that created it (NULL until its creation event arrives, for a
  -- device that joined with an invitation).
  founder BLOB CHECK (founder IS NULL OR length(founder) = 16),
  created_hlc INTEGER
) STRICT;

-- The group's member list, as the membership changes in the log make it.
CREATE TABLE chronicle_members (
  peer_id BLOB PRIMARY KEY NOT NULL CHECK (length(peer_id) = 16),
  -- NULL for a founding member whose events are all from before device keys.
  public_key BLOB CHECK (public_key IS NULL OR length(public_key) = 32),
  -- Who added it (NULL for the founder) and the clock of that event.
  added_by BLOB CHECK (added_by IS NULL OR length(added_by) = 16),
  added_hlc INTEGER NOT NULL,
  -- 'founder', 'founding' (enrolled at creation), 'added', 'invitation', or
  -- 'inviter' (known from an invitation until the group's own events arrive).
  admission TEXT NOT NULL,
  revoked_by BLOB CHECK (revoked_by IS NULL OR length(revoked_by) = 16),
  revoked_hlc INTEGER,
  -- Its events after this sequence are refused.
  revoked_after_sequence INTEGER
) STRICT;
"""),
    (4, """
-- Chronicle core schema, version 4: merge-state keys in key order.
-- chronicle_rows.row_key (and chronicle_baseline_rows.row_key) held the
-- primary key in the event value encoding, where integers are zigzag
-- varints: consecutive keys were scattered over the index, and a merge
-- walking a table in key order read its merge state from pages all over the
-- file. From this version each value is a tag byte and bytes that sort as
-- the value does (Sources/Chronicle/Sync/MergeStateKey.swift). The tables
-- keep their columns; the stored keys are re-encoded by the conversion of
-- version 5 (MergeStateUpgrade.convertVersion4States), which reads keys of
-- every earlier encoding.
"""),
    (5, """
-- Chronicle core schema, version 5: compact merge state.
-- Merge state spelled out each row's table, each column and each winning
-- peer in full, on every row: about 120 bytes per synced row of a
-- five-column table, twice the row itself. From this version names and
-- peers are numbers (Sources/Chronicle/Sync/MergeDictionary.swift), an
-- integer key takes the bytes its magnitude needs, and the latest delete's
-- version is packed with the column versions
-- (Sources/Chronicle/Sync/RowMergeState.swift). The upgrade converts the
-- stored states (MergeStateUpgrade.convertVersion4States), since SQL alone
-- cannot, then drops the temporary tables that held them.

-- Table and column names the merge state refers to, by number. A number
-- never changes meaning: a renamed table or column takes another.
CREATE TABLE chronicle_merge_names (
  number INTEGER PRIMARY KEY NOT NULL,
  name TEXT NOT NULL UNIQUE
) STRICT;

-- Peers whose writes the merge state records, by number.
CREATE TABLE chronicle_merge_origins (
  number INTEGER PRIMARY KEY NOT NULL,
  peer_id BLOB NOT NULL UNIQUE CHECK (length(peer_id) = 16)
) STRICT;

-- The version 4 states wait in temporary tables for the conversion. (Not
-- ALTER TABLE ... RENAME: it re-checks every view, and an app's temporary
-- view may name a table this file does not have yet.)
CREATE TEMP TABLE chronicle_rows_version4 AS SELECT * FROM main.chronicle_rows;
CREATE TEMP TABLE chronicle_baseline_rows_version4 AS SELECT * FROM main.chronicle_baseline_rows;
DROP TABLE main.chronicle_rows;
DROP TABLE main.chronicle_baseline_rows;

-- Merge state of synced rows (Sync/, see Schemas/SYNC-PROTOCOL.md): one row
-- per application row that any event wrote. Kept up to date from the log
-- lazily, when a sync applies remote events, so local writes pay nothing.
CREATE TABLE chronicle_rows (
  -- The table's name, numbered in chronicle_merge_names.
  table_number INTEGER NOT NULL,
  -- The primary key, values in key order (MergeStateKey).
  row_key BLOB NOT NULL,
  -- Whether an insert was merged, the version of the latest delete (a
  -- tombstone: the row is live when some column version is newer), and
  -- each column's version, packed.
  clocks BLOB NOT NULL,
  -- Why a live row is not in its table: 'incomplete' (an update arrived
  -- before the row's insert) or 'parent' (a foreign key's parent is absent).
  parked_reason TEXT,
  -- Column values of a row that is not in its table: deleted (kept so that
  -- a later write resurrects it whole) or parked (see parked_reason).
  retained BLOB,
  PRIMARY KEY (table_number, row_key)
) STRICT, WITHOUT ROWID;

CREATE INDEX chronicle_rows_parked ON chronicle_rows (parked_reason) WHERE parked_reason IS NOT NULL;

-- The merge state of the baseline's rows: chronicle_rows as it was then.
CREATE TABLE chronicle_baseline_rows (
  table_number INTEGER NOT NULL,
  row_key BLOB NOT NULL,
  clocks BLOB NOT NULL,
  parked_reason TEXT,
  retained BLOB,
  PRIMARY KEY (table_number, row_key)
) STRICT, WITHOUT ROWID;
"""),
    (6, """
-- Chronicle core schema, version 6: merge state of integer keys by row id.
-- A merge saves the state of every row it touches. In chronicle_rows each
-- save looks its row up by comparing encoded keys down a WITHOUT ROWID
-- tree; most tracked tables are keyed by an INTEGER PRIMARY KEY, whose
-- states are found here by one integer instead (about three times faster
-- to save). The upgrade moves the states of such keys here
-- (MergeStateUpgrade.moveIntegerKeyStates). Baselines keep one layout.

-- Merge state of rows whose primary key is one integer from 0 through
-- 2^40 - 1: chronicle_rows' columns, under the row id table_number * 2^40
-- + key (Sources/Chronicle/Sync/IntegerRowID.swift).
CREATE TABLE chronicle_integer_rows (
  table_and_key INTEGER PRIMARY KEY NOT NULL,
  clocks BLOB NOT NULL,
  parked_reason TEXT,
  retained BLOB
) STRICT;

CREATE INDEX chronicle_integer_rows_parked ON chronicle_integer_rows (parked_reason) WHERE parked_reason IS NOT NULL;
"""),
    (7, """
-- Chronicle core schema, version 7: the rows each own event changed.
-- Local writes do not keep merge state; a merge of writes older than some
-- of them folds those writes first. With the rows each event changed, it
-- folds only the own events that touched the rows it receives, without
-- decoding the others (Sources/Chronicle/EventLog/EventRowTouches.swift).
-- Kept beside the table index capture writes anyway: no page more per write.

-- 32-bit hashes of (table, key) of each row of the table the event
-- changed, little-endian, four bytes each. Empty for an event merged from
-- another peer (its versions went into merge state as it merged); NULL
-- when not known (rows copied whole, events replayed here or logged
-- before this version): any row.
ALTER TABLE chronicle_event_tables ADD COLUMN row_hashes BLOB;
"""),
    (8, """
-- Chronicle core schema, version 8: membership history and roles.
-- A group's member list is resolved from the set of its membership events,
-- each naming the ones its writer had applied (Sources/Chronicle/Identity/
-- MembershipHistory.swift): the same on every device whatever the order they
-- arrived in. Groups of earlier versions, whose member list followed arrival
-- order, cannot be checked against that: they are left, and created anew.

-- Every signed membership event of the group this database holds, in its
-- signed form, by its hash (SHA-256 of the bytes its signature covers).
CREATE TABLE chronicle_membership_events (
  hash BLOB PRIMARY KEY NOT NULL CHECK (length(hash) = 32),
  origin BLOB NOT NULL CHECK (length(origin) = 16),
  sequence INTEGER NOT NULL,
  hlc INTEGER NOT NULL,
  event BLOB NOT NULL
) STRICT;

-- 'reader', 'writer' or 'admin'.
ALTER TABLE chronicle_members ADD COLUMN role TEXT NOT NULL DEFAULT 'writer';
-- The invitation an admin admitted the device with.
ALTER TABLE chronicle_members ADD COLUMN invitation BLOB CHECK (invitation IS NULL OR length(invitation) = 16);

DELETE FROM chronicle_members;
DELETE FROM chronicle_group;
"""),
    (9, """
-- Chronicle core schema, version 9: refused events.
-- A received event refused for any reason (a signature that does not
-- verify, an origin that is not a member or was revoked before it, a
-- reader's write, another group's event, a different copy of an event the
-- log holds, a clock far ahead) is recorded here, and the rest of its batch
-- applies: no single event stops a sync (Sources/Chronicle/Sync/
-- RefusedEvents.swift).
CREATE TABLE chronicle_refused_events (
  origin BLOB NOT NULL CHECK (length(origin) = 16),
  sequence INTEGER NOT NULL,
  reason TEXT NOT NULL,
  -- Who sent the refused copy, last.
  source TEXT NOT NULL,
  -- 1: final for an event whose origin is proven (its signature verified).
  -- The version vector counts it as held, so no peer sends it again; its
  -- signed form is kept in `event`, admitted after all if the member list
  -- changes so that it may be. 0: a good copy is still taken from any peer.
  settled INTEGER NOT NULL CHECK (settled IN (0, 1)),
  bytes INTEGER NOT NULL,
  -- The CRC-32 of the refused copy (EVENT-FORMAT.md), when it decoded.
  checksum INTEGER,
  event BLOB,
  -- Unix milliseconds.
  first_refused INTEGER NOT NULL,
  last_refused INTEGER NOT NULL,
  times INTEGER NOT NULL,
  PRIMARY KEY (origin, sequence)
) STRICT;
"""),
    (10, """
-- Chronicle core schema, version 10: route signatures.
-- For each event this database holds that may be forwarded to a relay, the
-- epoch of the group key its origin sealed it with and the origin's
-- signature of those sealed bytes (Schemas/SYNC-PROTOCOL.md, "Relay").
-- Sealing is deterministic, so any member holding that epoch's key seals
-- the event to the same bytes, and a relay checks the origin's signature
-- before it stores what a member forwards. Received with events from
-- relays and peers; checked before use (a route that does not verify is
-- dropped, and another copy taken).
CREATE TABLE chronicle_event_routes (
  origin BLOB NOT NULL CHECK (length(origin) = 16),
  sequence INTEGER NOT NULL,
  epoch BLOB NOT NULL CHECK (length(epoch) = 32),
  signature BLOB NOT NULL CHECK (length(signature) = 64),
  PRIMARY KEY (origin, sequence)
) STRICT, WITHOUT ROWID;

-- Events a forwarder holds without a route and a relay lacks: it asks its
-- peers and relays for their routes at its next syncs (a TCP vector and a
-- relay pull carry these ranges), so that forwarding does not stop for
-- good at an event that reached it by a path that carried no route (one
-- written before its origin held a group key, for instance).
CREATE TABLE chronicle_route_wants (
  origin BLOB PRIMARY KEY NOT NULL CHECK (length(origin) = 16),
  from_sequence INTEGER NOT NULL,
  through_sequence INTEGER NOT NULL
) STRICT;
"""),
    (11, """
-- Chronicle core schema, version 11: checkpoints of revoked devices' histories.
-- Signed events of format version 3 link to their origin's previous event
-- (EVENT-FORMAT.md, "Links"), and a revocation names the digests of some of
-- the revoked device's events its writer held (the last one, and one at
-- least every 4,096 events or 16 MiB). That device's events up to them are
-- taken only when they lead to them (Sources/Chronicle/Identity/
-- RevokedHistory.swift): a revoked device cannot sign other contents for
-- the sequences a peer has not seen yet. Each checkpoint: the sequence
-- (u64, big-endian) and the digest (32 bytes). Filled by the next resolve
-- of the member list (revocations written before this version name none).
ALTER TABLE chronicle_members ADD COLUMN revoked_checkpoints BLOB CHECK (revoked_checkpoints IS NULL OR length(revoked_checkpoints) % 40 = 0);
"""),
    (12, """
-- Chronicle core schema, version 12: what a reader wrote while it could.
-- An admin that makes a writer (or an admin) a reader names, as a
-- revocation does, the last event it had of the device and checkpoints of
-- its history (membership kind 0x0C, EVENT-FORMAT.md): the reader's row
-- changes up to that event were made while it could write, and every
-- member takes them (when they lead to the checkpoints); those after it are
-- refused. Filled by the next resolve of the member list (demotions written
-- before this version name no cut-off: every row change of such a reader
-- is refused, as before).
ALTER TABLE chronicle_members ADD COLUMN demoted_after_sequence INTEGER;
ALTER TABLE chronicle_members ADD COLUMN demoted_checkpoints BLOB CHECK (demoted_checkpoints IS NULL OR length(demoted_checkpoints) % 40 = 0);
"""),
  ]

  /// Steps a version needs beyond its SQL, run right after it.
  static func upgradeSteps(toVersion version: Int, _ db: Database) throws {
    if version == 5 { try MergeStateUpgrade.convertVersion4States(db) }
    if version == 6 { try MergeStateUpgrade.moveIntegerKeyStates(db) }
  }

  /// The newest schema version.
  static var currentVersion: Int { migrations.last!.version }

  /// Whether `name` belongs to Chronicle or SQLite rather than the app.
  static func isReserved(_ name: String) -> Bool {
    let lower = name.lowercased()
    return lower.hasPrefix("chronicle_") || lower.hasPrefix("sqlite_")
  }
}

extension InternalSchema {
  /// Creates or upgrades Chronicle's tables inside the current transaction.
  static func migrate(_ db: Database) throws {
    let found: Int
    let meta = ChronicleMeta(db: db)
    if try meta.exists() {
      found = try meta.value(.internalSchemaVersion) ?? 0
    } else {
      found = 0
    }
    guard found <= currentVersion else {
      throw ChronicleError.unsupportedInternalSchema(found: found, supported: currentVersion)
    }
    for migration in migrations where migration.version > found {
      try db.execute(sql: migration.sql)
      try upgradeSteps(toVersion: migration.version, db)
      try meta.set(.internalSchemaVersion, to: migration.version)
    }
  }
}
