-- No query reads the file journal by path (FileChanges reads a run's
-- changes in seq order, through the primary key): the index cost a write
-- per file change and answered nothing.
DROP INDEX IF EXISTS file_changes_path;
