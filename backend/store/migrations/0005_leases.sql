-- Which process drives a run: a run has at most one live lease, renewed
-- while its process lives. A process that finds a live lease of another
-- (the CLI beside a server) leaves the run alone.
CREATE TABLE leases (
    run_id     TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
