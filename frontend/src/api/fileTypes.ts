// Wire types of the file journal: the file.changed event, GET
// /runs/{id}/files and the undo, revert and rewind calls (event.FileChangedData,
// api.FilesView and run.RestoreResult), named from the generated schema;
// types.ts re-exports them with the rest of the API.

import type { components } from "./schema";

type Schemas = components["schemas"];

// file.changed (node_id: the tool node for a tool or command change; empty
// for an external change and for an undo, revert or rewind). Contents are
// named by their SHA-256; an absent before means the file did not exist, an
// absent after that it was deleted. source says who made the change: a file
// tool of the run, a command of the run, nobody of the run (a person,
// another program), or an undo, revert or rewind; op groups the changes
// taken back together; undoes (source undo) is the op undone, "run"
// (revert), "from:<node>" (rewind) or "after:<node>" (a fork's restore).
export type FileChangedData = Schemas["FileChangedData"];
export type FileSource = FileChangedData["source"];

// Comparing before the run's first change with now; unchanged: changed and
// changed back.
export type FileStatus = FileView["status"];

// ChangeView is one change of one file, with its own diff (diff_note says
// why there is none, or that it was cut).
export type ChangeView = Schemas["ChangeView"];

// FileView is one file the run changed or saw changed: the diff of the whole
// run and each change in order; external: some change came from a command
// of the run or from outside it.
export type FileView = Schemas["FileView"];

// GET /api/v1/runs/{id}/files: files in the order of their first change.
export type FilesView = Schemas["FilesView"];

// What an undo, revert or rewind did. op is the restore's own op, itself
// undoable with POST /files/undo {op}.
export type RestoreResult = Schemas["RestoreResult"];

// One file that stopped an undo, revert or rewind (409 conflict): nothing
// was written.
export type FileConflict = Schemas["Conflict"];
