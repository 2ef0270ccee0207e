// The logs the incremental folds are checked against: every fold fixture of
// backend/run/testdata/fold (the logs the Go fold is checked against), the
// recording fixture and a big run; and a seeded generator to split them.

import type { Event } from "../api/types";
import { emptyTranscript, reduceRunBatch, type RunTranscript } from "../store/reducer";
import { bigRunEvents } from "./bigRun";
import { recordingEvents } from "./recording";

const archives = import.meta.glob("../../../backend/run/testdata/fold/*.txtar", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

// The logs of a txtar: each file ending in .jsonl.
function logsOf(text: string): [string, Event[]][] {
  const found = [...text.matchAll(/^-- (.+) --$/gm)];
  return found.flatMap((m, i) => {
    if (!m[1]!.endsWith(".jsonl")) return [];
    const start = m.index + m[0].length + 1;
    const end = i + 1 < found.length ? found[i + 1]!.index : text.length;
    const evs = text
      .slice(Math.min(start, end), end)
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as Event);
    return [[m[1]!, evs]];
  });
}

// foldLogs are the logs, by name.
export function foldLogs(bigTurns = 60): [string, Event[]][] {
  return [
    ...Object.entries(archives).flatMap(([path, text]) => logsOf(text).map(([f, evs]): [string, Event[]] => [`${path.replace(/^.*\//, "")}:${f}`, evs])),
    ["recording", recordingEvents()],
    ["big run", bigRunEvents({ turns: bigTurns })],
  ];
}

// seeded is a small seeded generator (mulberry32) of numbers in [0, 1): a
// failure names its seed.
export function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// readInPages yields the transcripts of a log read in pages of random
// sizes, some of one event (a live run), down to the whole log.
export function* readInPages(evs: readonly Event[], seed: number): Generator<RunTranscript> {
  const r = seeded(seed);
  let t = emptyTranscript(evs[0]!.run_id);
  for (let i = 0; i < evs.length; ) {
    const n = r() < 0.5 ? 1 : 1 + Math.floor(r() * Math.max(1, evs.length / 4));
    t = reduceRunBatch(t, evs.slice(i, i + n));
    i += n;
    yield t;
  }
}
