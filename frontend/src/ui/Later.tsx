import { useEffect, useState, type ReactNode } from "react";
import { nextTask } from "../store/historyFold";

// Later renders its children a task after it first rendered (in the
// meanwhile, fallback). A view that mounts much at once (the run view:
// its header, transcript and graph, their code run for the first time)
// was one task of 80-120 ms; its parts mounted each in a task of their
// own keep the page answering between them.
export function Later({ children, fallback = null }: { children: ReactNode; fallback?: ReactNode }) {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    let live = true;
    void nextTask().then(() => live && setReady(true));
    return () => {
      live = false;
    };
  }, []);
  return ready ? children : fallback;
}
