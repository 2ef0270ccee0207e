import { useEffect, useMemo, useState } from "react";
import { useApp } from "../../store/context";
import { terminalStatuses } from "../../store/status";
import { timelineOf, type Timeline } from "./timelineFold";

// How often the bars of running nodes grow: often enough that a second
// shows as moving, seldom enough that a run of 2,000 nodes is folded
// again twice a second at most (a few milliseconds each).
export const tickMs = 500;

// useTimeline is a run's timeline, drawn again as the run's state changes
// and, while the run goes on, as the clock moves: one timer for all bars,
// stopped once the run ends. A replay (a recording's player) has no clock:
// it is drawn to the last thing the log it has reached knows.
export function useTimeline(runId: string, replay = false): Timeline {
  const t = useApp((s) => s.stream.runs[runId]);
  const ended = t?.status !== undefined && terminalStatuses.has(t.status);
  const now = useClock(!replay && !ended && t !== undefined);
  return useMemo(() => timelineOf(t, now), [t, now]);
}

// useClock is the time (Unix ms), refreshed every tickMs while on;
// undefined while off.
function useClock(on: boolean): number | undefined {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), tickMs);
    return () => clearInterval(id);
  }, [on]);
  return on ? now : undefined;
}
