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
