-- Cost in US dollars, from the price table, per model call and per run.
ALTER TABLE nodes ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
