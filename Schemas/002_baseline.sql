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
