// What each run status means to the UI, in one table over the wire's
// RunStatus: a Record over it, so the compiler refuses this file when the
// server's vocabulary (run.Statuses in backend/run/status.go, declared by
// the OpenAPI document the wire types follow) gains or loses a status.
// Every list of statuses the UI needs is derived from it.

import type { RunStatus } from "../api/types";

const facts: Record<RunStatus, { ended: boolean; acting: boolean }> = {
  // acting: the run may be changing files now; the server refuses to
  // restore them then (backend/run/restore.go): pause it first.
  queued: { ended: false, acting: true },
  running: { ended: false, acting: true },
  pausing: { ended: false, acting: true },
  waiting: { ended: false, acting: false },
  paused: { ended: false, acting: false },
  completed: { ended: true, acting: false },
  failed: { ended: true, acting: false },
  cancelled: { ended: true, acting: false },
};

// Every run status, in the server's order.
export const runStatuses = Object.keys(facts) as RunStatus[];

const where = (f: (s: RunStatus) => boolean): ReadonlySet<string> => new Set(runStatuses.filter(f));

// A run is over once its status is one of these.
export const terminalStatuses = where((s) => facts[s].ended);

// A run in one of these has not ended.
export const activeStatuses = where((s) => !facts[s].ended);

// A run in one of these may be writing files: no restore then.
export const actingStatuses = where((s) => facts[s].acting);
