import { useShallow } from "zustand/react/shallow";
import { useApp } from "../../store/context";
import { selectRun } from "../../store/store";
import { liveRun, type LiveRun } from "./liveRun";

// useLiveRun is liveRun of the run, the same object while none of its
// fields changed: a streamed delta moves the run's last seq, not its status
// or its controls, and does not render them again.
export function useLiveRun(runId: string): LiveRun {
  return useApp(useShallow((s) => liveRun(selectRun(s, runId), s.stream.runs[runId])));
}
