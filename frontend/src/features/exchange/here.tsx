import { useEffect, useState } from "react";
import { isApiError } from "../../api/client";
import { useApp, useServices } from "../../store/context";
import { selectRun } from "../../store/store";

// useRunHere says whether run id is on this machine: true when the store
// knows it, false only when the server answered not_found (a run recorded
// elsewhere, as an imported recording's forks and sources are: their ids
// are another machine's), undefined while it is not known. The run list
// holds only the newest runs, so a run missing from it is asked for once,
// and kept in the store when found.
export function useRunHere(id: string | undefined): boolean | undefined {
  const known = useApp((s) => !!id && !!selectRun(s, id));
  const { api, store } = useServices();
  const [missing, setMissing] = useState<string>();
  useEffect(() => {
    if (!id || known) return;
    let live = true;
    api.run(id).then(
      (r) => live && store.getState().setRun(r),
      (err: unknown) => live && isApiError(err, "not_found") && setMissing(id),
    );
    return () => {
      live = false;
    };
  }, [id, known, api, store]);
  if (!id) return undefined;
  if (known) return true;
  return missing === id ? false : undefined;
}

// NotHere stands for a link to a run that is not on this machine: plain
// text that says so, instead of a link to a run that would not open.
export function NotHere({ id }: { id: string }) {
  return (
    <span className="run-elsewhere" data-testid="run-elsewhere" title={`Run ${id} was recorded on another machine: it is not in this Steward`}>
      run {id} (not on this machine)
    </span>
  );
}
