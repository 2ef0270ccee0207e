import { startTransition, useEffect, useState, type ReactNode } from "react";
import { nextTask } from "../store/historyFold";

// Later renders its children a task after it first rendered (in the
// meanwhile, fallback), in a transition: React renders them in slices,
// yielding to the page between components. A view that mounts much at
// once (the run view: its header, transcript and graph, their code run for
// the first time) was one task of 80-120 ms, and the graph's mount alone,
// a task later but in one piece, was 50.
export function Later({ children, fallback = null }: { children: ReactNode; fallback?: ReactNode }) {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    let live = true;
    void nextTask().then(() => live && startTransition(() => setReady(true)));
    return () => {
      live = false;
    };
  }, []);
  return ready ? children : fallback;
}
