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
