import { useEffect, useMemo, useRef, useState } from "react";
import { nextTask } from "../../store/historyFold";
import type { FoldChoices } from "./fold";
import type { OriginData, RunGraph } from "./layout";
import { Slicer, type Laid } from "./slicer";

// Up to this many nodes to take in are folded and laid out in the render
// that brings them (a live run's node, a small run whole): a few
// milliseconds. More go in slices, one task at a time.
const syncNodes = 400;
// A task takes in slices of this many nodes until it has worked this long.
const sliceNodes = 250;
const sliceMs = 12;

// useLaid is the graph folded and laid out (slicer.ts): in the render when
// little changed, else over tasks, the last layout standing meanwhile (none
// at first: then undefined).
export function useLaid(graph: RunGraph, choices: FoldChoices, reveal: string | undefined, origin: OriginData | undefined): Laid | undefined {
  const held = useRef<Slicer | undefined>(undefined);
  const slicer = (held.current ??= new Slicer());
  // Set when a layout finished over tasks, to render it.
  const [finished, setFinished] = useState(0);
  const laid = useMemo(() => {
    slicer.aim(graph, choices, reveal, origin);
    if (slicer.left() <= syncNodes) slicer.finish();
    return slicer.laid();
  }, [slicer, graph, choices, reveal, origin, finished]);

  useEffect(() => {
    if (slicer.ready()) return;
    let stopped = false;
    void (async () => {
      for (;;) {
        await nextTask();
        if (stopped) return;
        const start = performance.now();
        let done = false;
        while (!done && performance.now() - start < sliceMs) done = slicer.step(sliceNodes);
        if (done) {
          setFinished((n) => n + 1);
          return;
        }
      }
    })();
    return () => {
      stopped = true;
    };
  }, [slicer, graph, choices, reveal, origin]);
  return laid;
}
