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
