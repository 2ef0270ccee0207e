-- Which run a replay replays (the recorded run's id), '' for a run that is
-- not a replay. A replay cannot be resumed after a restart (its recording
-- is not at hand), so recovery needs to tell it apart without a log read.
ALTER TABLE runs ADD COLUMN replay_of TEXT NOT NULL DEFAULT '';
UPDATE runs SET replay_of = COALESCE((SELECT e.data->>'$.replay_of' FROM events e
	WHERE e.run_id = runs.id AND e.type = 'run.created' LIMIT 1), '');
