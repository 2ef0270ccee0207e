-- The key a tool gave its call when the approval was asked (a browser tool:
-- the page's host), NULL for a tool that gives none. A grant saved by the
-- answer holds for that key, not for whatever page is open when the person
-- answers.
ALTER TABLE interactions ADD COLUMN key TEXT;
