-- Chronicle core schema, version 8: membership history and roles.
-- A group's member list is resolved from the set of its membership events,
-- each naming the ones its writer had applied (Sources/Chronicle/Identity/
-- MembershipHistory.swift): the same on every device whatever the order they
-- arrived in. Groups of earlier versions, whose member list followed arrival
-- order, cannot be checked against that: they are left, and created anew.

-- Every signed membership event of the group this database holds, in its
-- signed form, by its hash (SHA-256 of the bytes its signature covers).
CREATE TABLE chronicle_membership_events (
  hash BLOB PRIMARY KEY NOT NULL CHECK (length(hash) = 32),
  origin BLOB NOT NULL CHECK (length(origin) = 16),
  sequence INTEGER NOT NULL,
  hlc INTEGER NOT NULL,
  event BLOB NOT NULL
) STRICT;

-- 'reader', 'writer' or 'admin'.
ALTER TABLE chronicle_members ADD COLUMN role TEXT NOT NULL DEFAULT 'writer';
-- The invitation an admin admitted the device with.
ALTER TABLE chronicle_members ADD COLUMN invitation BLOB CHECK (invitation IS NULL OR length(invitation) = 16);

DELETE FROM chronicle_members;
DELETE FROM chronicle_group;
