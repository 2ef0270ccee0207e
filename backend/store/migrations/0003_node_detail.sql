-- Per-node figures for the graph: tokens, wall time, failed attempts, error.
ALTER TABLE nodes ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN duration_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN error TEXT NOT NULL DEFAULT '';
