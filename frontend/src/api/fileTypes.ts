// Wire types of the file journal: the file.changed event, GET
// /runs/{id}/files and the undo, revert and rewind calls. Mirrors
// event.FileChangedData, api.FilesView and run.RestoreResult one to one;
// types.ts re-exports them with the rest of the API.

// Who made a change: a file tool of the run, a command of the run, nobody of
// the run (a person, another program), or an undo, revert or rewind.
export type FileSource = "tool" | "command" | "external" | "undo";

// file.changed (node_id: the tool node for a tool or command change; empty
// for an external change and for an undo, revert or rewind). Contents are
// named by their SHA-256; an absent before means the file did not exist, an
// absent after that it was deleted.
export type FileChangedData = {
  path: string; // relative to the workspace, slash-separated
  before?: string;
  after?: string;
  // What the file held before is not known: this change cannot be undone.
  before_unknown?: boolean;
  size: number; // bytes after
  source: FileSource;
  // Groups the changes taken back together: the tool node, an ext_ id, or
  // the id of an undo_, revert_ or rewind_.
  op: string;
  // source undo: the op undone, "run" (revert) or "from:<node>" (rewind).
  undoes?: string;
};

// Comparing before the run's first change with now; unchanged: changed and
// changed back.
export type FileStatus = "added" | "modified" | "deleted" | "unchanged";

// ChangeView is one change of one file, with its own diff.
export type ChangeView = {
  seq: number;
  node_id?: string;
  op: string;
  source: FileSource;
  undoes?: string;
  before?: string;
  after?: string;
  before_unknown?: boolean;
  size: number;
  created_at: number;
  diff?: string; // unified diff text
  diff_note?: string; // why there is no diff (binary, unknown before, too large), or that it was cut
};

// FileView is one file the run changed or saw changed: the diff of the whole
// run and each change in order.
export type FileView = {
  path: string;
  status: FileStatus;
  // Some change came from a command of the run or from outside it.
  external: boolean;
  diff?: string;
  diff_note?: string;
  changes: ChangeView[];
};

// GET /api/v1/runs/{id}/files: files in the order of their first change.
export type FilesView = { files: FileView[] };

// What an undo, revert or rewind did. op is the restore's own op, itself
// undoable with POST /files/undo {op}.
export type RestoreResult = { op: string; changes: FileChangedData[] };

// One file that stopped an undo, revert or rewind (409 conflict): nothing
// was written.
export type FileConflict = { path: string; reason: string };
