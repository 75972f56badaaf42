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
