-- The run list's search for text of one or two characters (issue 18),
-- which has no trigram of its own to look up in runs_text. An occurrence
-- of such text is the start of a trigram of the text, unless it is within
-- the text's last two characters: runs_text_terms lists the trigrams (an
-- FTS5 vocabulary of runs_text, read one term at a time), and the two tail
-- indexes find the runs by their last characters. A search that found
-- nothing read every run (34 ms at 100,000 runs); now it reads a few index
-- entries.
CREATE VIRTUAL TABLE runs_text_terms USING fts5vocab(runs_text, instance);
CREATE INDEX runs_tail2 ON runs(lower(substr(instructions, -2)));
CREATE INDEX runs_tail1 ON runs(lower(substr(instructions, -1)));

-- The waiting-on-you filter reads the runs of the pending interactions,
-- and only those: this index holds nothing else.
CREATE INDEX interactions_pending ON interactions(run_id) WHERE status = 'pending';
