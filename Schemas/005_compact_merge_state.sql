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
