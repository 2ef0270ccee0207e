import { useCallback, useEffect, useRef, useState } from "react";
import type { FilesView } from "../../api/types";
import { useApp, useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";

// A tool call, a command or a restore writes its files in a burst of
// file.changed events: one fetch for the burst, at most one per this delay.
export const refetchDelayMs = 300;

// useFilesView fetches a run's files view while the component using it is
// mounted (the Files tab is visible), and again after file.changed events
// of the run arrive. A late answer to an older request never replaces a
// newer one.
export function useFilesView(runId: string): { view?: FilesView; error?: string; reload: () => Promise<void> } {
  const { api } = useServices();
  const fileSeq = useApp((s) => s.stream.runs[runId]?.files.lastSeq ?? 0);
  const [view, setView] = useState<FilesView>();
  const [error, setError] = useState<string>();
  const latest = useRef(0);

  const reload = useCallback(async () => {
    const n = ++latest.current;
    try {
      const v = await api.runFiles(runId);
      if (n !== latest.current) return;
      setView(v);
      setError(undefined);
    } catch (err) {
      if (n === latest.current) setError(errorMessage(err));
    }
  }, [api, runId]);

  useEffect(() => {
    void reload();
    return () => {
      // Answers still on their way are for a view no longer shown.
      latest.current++;
    };
  }, [reload]);

  // What the first fetch already covers; later seqs mean the view is stale.
  const seen = useRef(fileSeq);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    if (fileSeq === seen.current) return;
    seen.current = fileSeq;
    // A pending fetch is not pushed back: a long burst (a build writing
    // files for a minute) still refreshes the view as it goes.
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      void reload();
    }, refetchDelayMs);
  }, [fileSeq, reload]);
  useEffect(
    () => () => {
      clearTimeout(timer.current);
      timer.current = undefined;
    },
    [],
  );

  return { view, error, reload };
}
