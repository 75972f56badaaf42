/// The relay store's tables, as versioned in `Schemas/relay/` (a test
/// checks that each file and its copy here are the same).
package enum RelaySchema {
  /// `Schemas/relay/sqlite-001.sql`.
  package static let sqlite001 = """
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
    """

  /// `Schemas/relay/postgres-001.sql`.
  package static let postgres001 = """
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
    """

  /// `Schemas/relay/sqlite-002.sql`.
  package static let sqlite002 = """
    -- A relay's embedded store, version 2: group creation tokens.
    -- A relay that does not start groups for anyone (chronicle relay without
    -- --open-groups) starts one only for a device that brings a token its
    -- operator created (chronicle relay token create). Only the token's SHA-256
    -- is kept: a copy of the store gives none away.
    CREATE TABLE relay_creation_tokens (
      token_hash BLOB PRIMARY KEY NOT NULL CHECK (length(token_hash) = 32),
      -- How many more groups it may start.
      groups_left INTEGER NOT NULL CHECK (groups_left >= 0),
      created_at TEXT NOT NULL
    ) STRICT;
    """

  /// `Schemas/relay/postgres-002.sql`.
  package static let postgres002 = """
    -- A relay's PostgreSQL store, version 2: group creation tokens.
    -- A relay that does not start groups for anyone (chronicle relay without
    -- --open-groups) starts one only for a device that brings a token its
    -- operator created (chronicle relay token create). Only the token's SHA-256
    -- is kept: a copy of the store gives none away.
    CREATE TABLE relay_creation_tokens (
      token_hash BYTEA PRIMARY KEY CHECK (length(token_hash) = 32),
      -- How many more groups it may start.
      groups_left INTEGER NOT NULL CHECK (groups_left >= 0),
      created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    """

  /// `Schemas/relay/sqlite-003.sql`.
  package static let sqlite003 = """
    -- A relay's embedded store, version 3: route signatures.
    -- Each sealed data event is stored with its origin's signature of the
    -- sealed bytes (Schemas/SYNC-PROTOCOL.md, "Relay"): checked before it is
    -- stored, so any member may forward another's events, and handed out with
    -- it, so a device can forward it on. NULL for events stored before
    -- version 3 and for membership events, which are signed themselves.
    ALTER TABLE relay_events ADD COLUMN route BLOB CHECK (route IS NULL OR length(route) = 64);
    """

  /// `Schemas/relay/postgres-003.sql`.
  package static let postgres003 = """
    -- A relay's PostgreSQL store, version 3: route signatures.
    -- Each sealed data event is stored with its origin's signature of the
    -- sealed bytes (Schemas/SYNC-PROTOCOL.md, "Relay"): checked before it is
    -- stored, so any member may forward another's events, and handed out with
    -- it, so a device can forward it on. NULL for events stored before
    -- version 3 and for membership events, which are signed themselves.
    ALTER TABLE relay_events ADD COLUMN route BYTEA CHECK (route IS NULL OR length(route) = 64);
    """
}
