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
