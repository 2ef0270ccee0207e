-- Saved answers to approvals ("approve always", "deny always"): rules
-- scoped to a run, an agent or everywhere, applied before asking again.
CREATE TABLE grants (
    id         TEXT PRIMARY KEY,
    effect     TEXT NOT NULL,            -- allow, deny
    tool       TEXT NOT NULL,
    match      TEXT NOT NULL DEFAULT '', -- glob on the key argument; '' = any call of tool
    scope      TEXT NOT NULL,            -- run, agent, everywhere
    run_id     TEXT NOT NULL DEFAULT '',
    agent_id   TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
);
CREATE INDEX grants_run ON grants(run_id) WHERE scope = 'run';
CREATE INDEX grants_agent ON grants(agent_id) WHERE scope = 'agent';
