-- Approvals of parallel calls are grouped by their turn; an interaction may
-- expire with a default decision; questions (ask_user) carry what they ask,
-- and answers what was given beyond a decision (edited arguments, the text
-- and choices of an answer). question and answer are opaque JSON: nothing
-- queries inside them.
ALTER TABLE interactions ADD COLUMN group_id TEXT NOT NULL DEFAULT '';
ALTER TABLE interactions ADD COLUMN group_size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE interactions ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0; -- unix ms; 0 = never
ALTER TABLE interactions ADD COLUMN default_decision TEXT NOT NULL DEFAULT '';
ALTER TABLE interactions ADD COLUMN question TEXT NOT NULL DEFAULT '';
ALTER TABLE interactions ADD COLUMN answer TEXT NOT NULL DEFAULT '';
