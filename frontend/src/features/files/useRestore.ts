import { useCallback, useState } from "react";
import { isApiError, type Api } from "../../api/client";
import type { FileConflict, RestoreResult } from "../../api/types";
import { useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";

// RestoreAction is what a person asked to take back: one op (a tool call's
// changes, an external change, or an earlier restore), the whole run, or a
// node's changes and everything after them.
export type RestoreAction = { kind: "undo"; op: string } | { kind: "revert" } | { kind: "rewind"; nodeId: string };

// RestoreOutcome is how the last action ended. A conflict wrote nothing; an
// error may have written part (a write failed half way).
export type RestoreOutcome =
  | { kind: "done"; action: RestoreAction; result: RestoreResult }
  | { kind: "conflict"; message: string; conflicts: readonly FileConflict[] }
  | { kind: "error"; message: string };

// useRestore runs undo, revert and rewind one at a time, and refetches the
// files view after anything that may have written.
export function useRestore(runId: string, reload: () => Promise<void>) {
  const { api } = useServices();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<RestoreOutcome>();

  const run = useCallback(
    async (action: RestoreAction) => {
      setBusy(true);
      try {
        const result = await call(api, runId, action);
        setOutcome({ kind: "done", action, result });
        await reload();
      } catch (err) {
        if (isApiError(err, "conflict")) {
          // Nothing was written: the view stays as it is.
          setOutcome({ kind: "conflict", message: err.message, conflicts: err.conflicts });
        } else {
          setOutcome({ kind: "error", message: errorMessage(err) });
          await reload();
        }
      } finally {
        setBusy(false);
      }
    },
    [api, runId, reload],
  );

  return { run, busy, outcome, dismiss: () => setOutcome(undefined) };
}

function call(api: Api, runId: string, a: RestoreAction): Promise<RestoreResult> {
  switch (a.kind) {
    case "undo":
      return api.undoFiles(runId, a.op);
    case "revert":
      return api.revertFiles(runId);
    case "rewind":
      return api.rewindFiles(runId, a.nodeId);
  }
}
