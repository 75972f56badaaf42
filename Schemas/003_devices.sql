-- Chronicle core schema, version 3: device identity.
-- Every device (peer) signs the events it writes with its own Ed25519 key
-- (Schemas/EVENT-FORMAT.md, version 2). The private key is never stored here:
-- it lives in a file beside the database (DATABASE-device.key, mode 600), so a
-- copied database file does not carry it.

-- The public key of each device whose signed events this log holds, this
-- device's own included. A peer id derived from its key (UUID version 8) needs
-- no row to be checked; a peer id from before device keys (a random UUID) is
-- bound to the key of its first signed event, and from that event on every
-- event of that origin must be signed with that key.
CREATE TABLE chronicle_devices (
  peer_id BLOB PRIMARY KEY NOT NULL CHECK (length(peer_id) = 16),
  public_key BLOB NOT NULL CHECK (length(public_key) = 32),
  -- The sequence of the first event this device signed: its earlier events
  -- (written before it had a key) may be unsigned, its later ones may not.
  first_signed_sequence INTEGER NOT NULL CHECK (first_signed_sequence > 0)
) STRICT;

-- The group this database belongs to, once it created or joined one (or
-- received the events of one): from then on it accepts events only from the
-- group's members.
CREATE TABLE chronicle_group (
  singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1),
  group_id BLOB NOT NULL CHECK (length(group_id) = 16),
  -- The device that created it (NULL until its creation event arrives, for a
  -- device that joined with an invitation).
  founder BLOB CHECK (founder IS NULL OR length(founder) = 16),
  created_hlc INTEGER
) STRICT;

-- The group's member list, as the membership changes in the log make it.
CREATE TABLE chronicle_members (
  peer_id BLOB PRIMARY KEY NOT NULL CHECK (length(peer_id) = 16),
  -- NULL for a founding member whose events are all from before device keys.
  public_key BLOB CHECK (public_key IS NULL OR length(public_key) = 32),
  -- Who added it (NULL for the founder) and the clock of that event.
  added_by BLOB CHECK (added_by IS NULL OR length(added_by) = 16),
  added_hlc INTEGER NOT NULL,
  -- 'founder', 'founding' (enrolled at creation), 'added', 'invitation', or
  -- 'inviter' (known from an invitation until the group's own events arrive).
  admission TEXT NOT NULL,
  revoked_by BLOB CHECK (revoked_by IS NULL OR length(revoked_by) = 16),
  revoked_hlc INTEGER,
  -- Its events after this sequence are refused.
  revoked_after_sequence INTEGER
) STRICT;
