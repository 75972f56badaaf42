-- A relay's embedded store, version 3: route signatures.
-- Each sealed data event is stored with its origin's signature of the
-- sealed bytes (Schemas/SYNC-PROTOCOL.md, "Relay"): checked before it is
-- stored, so any member may forward another's events, and handed out with
-- it, so a device can forward it on. NULL for events stored before
-- version 3 and for membership events, which are signed themselves.
ALTER TABLE relay_events ADD COLUMN route BLOB CHECK (route IS NULL OR length(route) = 64);
