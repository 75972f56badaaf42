-- A relay's embedded store (chronicle relay --data FILE), version 1.
-- The relay keeps each group's events sealed: it never holds a key to them.

-- The groups it serves, and what each one stores (for the storage quota).
CREATE TABLE relay_groups (
  group_id BLOB PRIMARY KEY NOT NULL CHECK (length(group_id) = 16),
  events INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0
) STRICT;

-- Each device's events, in the order the relay stored them (position).
CREATE TABLE relay_events (
  position INTEGER PRIMARY KEY NOT NULL,
  group_id BLOB NOT NULL CHECK (length(group_id) = 16),
  origin BLOB NOT NULL CHECK (length(origin) = 16),
  sequence INTEGER NOT NULL CHECK (sequence > 0),
  -- The event sealed with the group's key: nonce, ciphertext, tag.
  sealed BLOB NOT NULL,
  UNIQUE (group_id, origin, sequence)
) STRICT;

CREATE INDEX relay_events_by_group ON relay_events (group_id, position);

-- The last sequence stored of each device: the group's version vector.
CREATE TABLE relay_origins (
  group_id BLOB NOT NULL,
  origin BLOB NOT NULL,
  last_sequence INTEGER NOT NULL,
  PRIMARY KEY (group_id, origin)
) STRICT, WITHOUT ROWID;

-- The signed membership events (no data: who created the group, who added,
-- joined or revoked whom) from which the relay knows each group's members.
CREATE TABLE relay_memberships (
  group_id BLOB NOT NULL,
  origin BLOB NOT NULL,
  sequence INTEGER NOT NULL,
  event BLOB NOT NULL,
  PRIMARY KEY (group_id, origin, sequence)
) STRICT, WITHOUT ROWID;
