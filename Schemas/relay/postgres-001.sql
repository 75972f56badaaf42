-- A relay's PostgreSQL store (chronicle relay --postgres URL), version 1.
-- Several relay processes share it. The relay keeps each group's events
-- sealed: it never holds a key to them.

-- The groups it serves: what each stores (for the storage quota), and the
-- position of its last event. Appends lock the group's row, so a group's
-- positions commit in order and a reader never skips one.
CREATE TABLE relay_groups (
  group_id UUID PRIMARY KEY,
  events BIGINT NOT NULL DEFAULT 0,
  bytes BIGINT NOT NULL DEFAULT 0,
  last_position BIGINT NOT NULL DEFAULT 0
);

-- Each device's events, in the order the relay stored them in their group.
CREATE TABLE relay_events (
  group_id UUID NOT NULL,
  position BIGINT NOT NULL,
  origin UUID NOT NULL,
  sequence BIGINT NOT NULL CHECK (sequence > 0),
  -- The event sealed with the group's key: nonce, ciphertext, tag.
  sealed BYTEA NOT NULL,
  PRIMARY KEY (group_id, position),
  UNIQUE (group_id, origin, sequence)
);

-- The last sequence stored of each device: the group's version vector.
CREATE TABLE relay_origins (
  group_id UUID NOT NULL,
  origin UUID NOT NULL,
  last_sequence BIGINT NOT NULL,
  PRIMARY KEY (group_id, origin)
);

-- The signed membership events (no data) from which the relay knows each
-- group's members.
CREATE TABLE relay_memberships (
  group_id UUID NOT NULL,
  origin UUID NOT NULL,
  sequence BIGINT NOT NULL,
  event BYTEA NOT NULL,
  PRIMARY KEY (group_id, origin, sequence)
);
