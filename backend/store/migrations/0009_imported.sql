-- A run imported from a recording is read-only: imported_from names the run
-- it was recorded as (on whatever machine made the recording), '' for a run
-- of this machine.
ALTER TABLE runs ADD COLUMN imported_from TEXT NOT NULL DEFAULT '';
