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
