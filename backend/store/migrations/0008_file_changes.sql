-- The journal of workspace files: one row per file.changed event, in the
-- order of the run's log. Contents are blobs in the data directory, named by
-- their SHA-256; '' means the file did not exist (before) or was deleted
-- (after).
CREATE TABLE file_changes (
    run_id         TEXT NOT NULL REFERENCES runs(id),
    seq            INTEGER NOT NULL,
    node_id        TEXT NOT NULL DEFAULT '',
    op             TEXT NOT NULL,
    path           TEXT NOT NULL,
    before         TEXT NOT NULL DEFAULT '',
    after          TEXT NOT NULL DEFAULT '',
    before_unknown INTEGER NOT NULL DEFAULT 0,
    size           INTEGER NOT NULL DEFAULT 0,
    source         TEXT NOT NULL,
    undoes         TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE INDEX file_changes_path ON file_changes(run_id, path, seq);
