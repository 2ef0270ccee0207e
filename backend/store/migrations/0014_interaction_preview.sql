-- What the call would change as its files were when it was asked about (a
-- write tool's diff, event.Preview as JSON), '' when its tool cannot tell.
-- The inbox shows it across runs without reading each run's log.
ALTER TABLE interactions ADD COLUMN preview TEXT NOT NULL DEFAULT '';
