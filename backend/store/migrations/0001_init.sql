-- Steward schema 1. Times are unix milliseconds. Events are ordered by their
-- dense per-run seq, never by time.

CREATE TABLE agents (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    spec       TEXT NOT NULL, -- JSON of agent.Agent: opaque, read whole
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE runs (
    id            TEXT PRIMARY KEY,
    agent_id      TEXT NOT NULL,
    agent_name    TEXT NOT NULL,
    status        TEXT NOT NULL,
    reason        TEXT NOT NULL DEFAULT '',
    error         TEXT NOT NULL DEFAULT '',
    instructions  TEXT NOT NULL,
    workspace     TEXT NOT NULL,
    mode          TEXT NOT NULL,
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    demo          INTEGER NOT NULL DEFAULT 0,
    unattended    INTEGER NOT NULL DEFAULT 0,
    max_steps     INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    last_seq      INTEGER NOT NULL DEFAULT 0,
    steps         INTEGER NOT NULL DEFAULT 0,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cached_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_status ON runs(status);
CREATE INDEX runs_created ON runs(created_at);

-- A rowid table: appends go to the end of the table whatever run they
-- belong to, and only the small (run_id, seq) index entries land next to
-- their run's. A clustered (run_id, seq) key made every group commit of
-- several live runs rewrite one full data page per run.
CREATE TABLE events (
    id      INTEGER PRIMARY KEY,
    run_id  TEXT NOT NULL REFERENCES runs(id),
    seq     INTEGER NOT NULL,
    ts      INTEGER NOT NULL,
    type    TEXT NOT NULL,
    node_id TEXT NOT NULL DEFAULT '',
    data    BLOB NOT NULL
);
CREATE UNIQUE INDEX events_run_seq ON events(run_id, seq);

CREATE TABLE nodes (
    run_id      TEXT NOT NULL REFERENCES runs(id),
    id          TEXT NOT NULL,
    seq         INTEGER NOT NULL, -- seq of its node.started event: graph order
    kind        TEXT NOT NULL,
    status      TEXT NOT NULL,
    label       TEXT NOT NULL,
    parent      TEXT NOT NULL DEFAULT '',
    tool        TEXT NOT NULL DEFAULT '',
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    PRIMARY KEY (run_id, id)
) WITHOUT ROWID;

CREATE TABLE edges (
    run_id TEXT NOT NULL REFERENCES runs(id),
    src    TEXT NOT NULL,
    dst    TEXT NOT NULL,
    kind   TEXT NOT NULL, -- parent or after
    PRIMARY KEY (run_id, src, dst, kind)
) WITHOUT ROWID;

CREATE TABLE interactions (
    id          TEXT PRIMARY KEY,
    run_id      TEXT NOT NULL REFERENCES runs(id),
    node_id     TEXT NOT NULL,
    kind        TEXT NOT NULL,
    status      TEXT NOT NULL,
    tool        TEXT NOT NULL DEFAULT '',
    arguments   TEXT NOT NULL DEFAULT '{}',
    risk        TEXT NOT NULL DEFAULT '',
    reason      TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    answered_at INTEGER,
    decision    TEXT NOT NULL DEFAULT '',
    feedback    TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX interactions_status ON interactions(status, created_at);
CREATE INDEX interactions_run ON interactions(run_id);

CREATE TABLE commands (
    run_id     TEXT NOT NULL,
    command_id TEXT NOT NULL,
    type       TEXT NOT NULL,
    result     TEXT NOT NULL, -- JSON of the first answer, returned again on a repeat
    created_at INTEGER NOT NULL,
    PRIMARY KEY (run_id, command_id)
) WITHOUT ROWID;
