-- What a paused run does next (JSON of event.Next), for the run list and
-- for the commands a paused run offers.
ALTER TABLE runs ADD COLUMN next TEXT NOT NULL DEFAULT '';
-- Which run a fork came from.
ALTER TABLE runs ADD COLUMN forked_from TEXT NOT NULL DEFAULT '';
