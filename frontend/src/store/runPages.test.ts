import { describe, expect, it } from "vitest";
import type { Run } from "../api/types";
import { appended, pageOf, refreshLimit, refreshed, runOrder } from "./runPages";

const run = (id: string, created_at: number, over: Partial<Run> = {}): Run => ({ id, created_at, status: "completed", ...over }) as Run;
// run_099 … run_000, newest first, one a millisecond.
const all = Array.from({ length: 100 }, (_, i) => run(`run_${String(99 - i).padStart(3, "0")}`, 1_000 + 99 - i));
const ids = (rs: Run[]) => rs.map((r) => r.id);

describe("run list pages", () => {
  it("orders as the server: created_at, then id, descending", () => {
    const rs = [run("a", 1), run("c", 2), run("b", 2)];
    expect(ids([...rs].sort(runOrder))).toEqual(["c", "b", "a"]);
  });

  it("reads the wire's cursor only while there are more", () => {
    expect(pageOf({ runs: [], more: true, next_before: "x" }).next).toBe("x");
    expect(pageOf({ runs: [], more: false, next_before: "" }).next).toBeUndefined();
  });

  it("appends the page after the cursor once, and drops one asked for before a refresh", () => {
    let held = refreshed({ runs: [] }, { runs: all.slice(0, 10), next: "c10" });
    held = appended(held, "c10", { runs: all.slice(9, 20), next: "c20" }); // overlaps by one
    expect(ids(held.runs)).toEqual(ids(all.slice(0, 20)));
    expect(held.runsNext).toBe("c20");
    expect(appended(held, "c10", { runs: all.slice(10, 20), next: "c20" })).toBe(held); // stale
    held = appended(held, "c20", { runs: all.slice(20, 25) });
    expect(held.runsNext).toBeUndefined();
  });

  it("a refresh keeps the runs loaded after its page, and takes new ones and changes", () => {
    const held = { runs: all.slice(1, 40), runsNext: "c40" };
    const fresh = [run("run_100", 2_000), ...all.slice(1, 20).map((r) => (r.id === "run_090" ? { ...r, status: "failed" as const } : r))];
    const got = refreshed(held, { runs: fresh, next: "c20" });
    expect(ids(got.runs)).toEqual(["run_100", ...ids(all.slice(1, 40))]);
    expect(got.runs.find((r) => r.id === "run_090")?.status).toBe("failed");
    expect(got.runsNext).toBe("c40"); // what follows the kept runs
  });

  it("a refresh that covers every held run takes its own cursor, and one at the end clears it", () => {
    expect(refreshed({ runs: all.slice(0, 10), runsNext: "c10" }, { runs: all.slice(0, 20), next: "c20" })).toEqual({ runs: all.slice(0, 20), runsNext: "c20" });
    expect(refreshed({ runs: all, runsNext: "old" }, { runs: all.slice(0, 5) })).toEqual({ runs: all.slice(0, 5), runsNext: undefined });
  });

  it("asks a refresh for as many runs as are held, within the server's bound", () => {
    expect(refreshLimit(0)).toBeUndefined();
    expect(refreshLimit(100)).toBeUndefined();
    expect(refreshLimit(300)).toBe(300);
    expect(refreshLimit(5_000)).toBe(1_000);
  });
});
