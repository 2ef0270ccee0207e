// The incremental fold (issue 18): a run's history is folded page by page
// into what is already there (sync.ts readHistory folds each page as it
// arrives). Over every fold fixture of backend/run/testdata/fold (the logs
// the Go fold is checked against) and a big run, any split of the log into
// pages must give the state folding the whole log at once gives.

import { describe, expect, it } from "vitest";
import { foldLogs, seeded as rand } from "../test/foldLogs";
import { emptyTranscript, reduceRunBatch } from "./reducer";

const logs = foldLogs();

describe("a log folded in pages", () => {
  it("has the fixtures", () => {
    expect(logs.length).toBeGreaterThanOrEqual(10);
    for (const [name, evs] of logs) expect(evs.length, name).toBeGreaterThan(3);
  });

  for (const [name, evs] of logs) {
    it(`gives the state of the whole of ${name} folded at once`, () => {
      const runId = evs[0]!.run_id;
      const whole = reduceRunBatch(emptyTranscript(runId), evs);
      for (let seed = 1; seed <= 25; seed++) {
        const r = rand(seed);
        let t = emptyTranscript(runId);
        const before: unknown[] = [];
        for (let i = 0; i < evs.length; ) {
          const n = 1 + Math.floor(r() * Math.max(1, evs.length / 3));
          // A page may also overlap the last one (a page read again after a
          // reconnect): the events already applied are ignored.
          const from = r() < 0.2 ? Math.max(0, i - 2) : i;
          const prev = t;
          before.push(JSON.stringify(prev));
          t = reduceRunBatch(t, evs.slice(from, i + n));
          // The transcript a page was folded into is left as it was.
          expect(JSON.stringify(prev), `seed ${seed}`).toBe(before.at(-1));
          i += n;
        }
        expect(t, `${name}, seed ${seed}`).toEqual(whole);
      }
    });
  }
});
