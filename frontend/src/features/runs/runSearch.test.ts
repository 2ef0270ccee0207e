import { describe, expect, it } from "vitest";
import type { Run } from "../../api/types";
import { noSearch, searchKey, searchParams, searchReducer, searchView, type SearchAction, type SearchState } from "./runSearch";

const run = (id: string, created_at: number) => ({ id, created_at }) as Run;
const fold = (actions: SearchAction[], from: SearchState = noSearch) => actions.reduce(searchReducer, from);
const ids = (s: SearchState) => s.runs.map((r) => r.id);

describe("searchParams", () => {
  it("asks nothing of an empty box under All, and the server's filters otherwise", () => {
    expect(searchParams("  ", "all")).toBeUndefined();
    expect(searchParams(" parser ", "all")).toEqual({ q: "parser" });
    expect(searchParams("", "attention")).toEqual({ attention: "true" });
    expect(searchParams("x", "failed")).toEqual({ status: "failed,cancelled", q: "x" });
    expect(searchParams("", "active")).toEqual({ status: "queued,running,pausing,waiting,paused" });
    expect(searchKey({ q: "a", status: "completed" })).toBe(searchKey({ status: "completed", q: "a" }));
    expect(searchKey({ q: "a" })).not.toBe(searchKey({ q: "a", attention: "true" }));
  });
});

describe("searchReducer", () => {
  const A = searchKey({ q: "a" });
  const AB = searchKey({ q: "ab" });

  it("drops the answer to an older question that arrives after a newer one's", () => {
    const s = fold([
      { type: "ask", seq: 1, key: A },
      { type: "ask", seq: 2, key: AB },
      { type: "first", seq: 2, page: { runs: [run("r_ab", 2)] } },
      { type: "first", seq: 1, page: { runs: [run("r_a", 3), run("r_ab", 2)] } }, // late
    ]);
    expect(ids(s)).toEqual(["r_ab"]);
    expect(searchView(s, AB)).toEqual({ runs: s.runs, stale: false, more: false, noMatch: false });
  });

  it("drops it too when it arrives before the newer one's: the older answer is stale, not shown as current", () => {
    const s = fold([
      { type: "ask", seq: 1, key: A },
      { type: "ask", seq: 2, key: AB },
      { type: "first", seq: 1, page: { runs: [run("r_a", 3)] } },
    ]);
    expect(ids(s)).toEqual([]);
    expect(searchView(s, AB).stale).toBe(true);
    expect(s.loading).toBe(true);
  });

  it("keeps the previous answer, stale, while a new question is out", () => {
    const s = fold([
      { type: "ask", seq: 1, key: A },
      { type: "first", seq: 1, page: { runs: [run("r_a", 3)] } },
      { type: "ask", seq: 2, key: AB },
    ]);
    expect(ids(s)).toEqual(["r_a"]);
    expect(searchView(s, AB)).toMatchObject({ stale: true, noMatch: false, more: false });
  });

  it("pages on with the same question only, after the page held", () => {
    const asked = fold([
      { type: "ask", seq: 1, key: A },
      { type: "first", seq: 1, page: { runs: [run("r3", 3)], next: "c3" } },
    ]);
    expect(searchView(asked, A).more).toBe(true);
    const more = searchReducer(asked, { type: "more", key: A, cursor: "c3", page: { runs: [run("r2", 2)], next: "c2" } });
    expect(ids(more)).toEqual(["r3", "r2"]);
    expect(more.runsNext).toBe("c2");
    // A next page of another question, or after another cursor, is dropped.
    expect(searchReducer(asked, { type: "more", key: AB, cursor: "c3", page: { runs: [run("x", 1)] } })).toBe(asked);
    expect(searchReducer(more, { type: "more", key: A, cursor: "c3", page: { runs: [run("x", 1)] } })).toBe(more);
    const moved = searchReducer(asked, { type: "ask", seq: 2, key: AB });
    expect(searchReducer(moved, { type: "more", key: A, cursor: "c3", page: { runs: [run("x", 1)] } })).toBe(moved);
  });

  it("refreshes what is shown without losing the pages after it, and not stale meanwhile", () => {
    const paged = fold([
      { type: "ask", seq: 1, key: A },
      { type: "first", seq: 1, page: { runs: [run("r3", 3)], next: "c3" } },
      { type: "more", key: A, cursor: "c3", page: { runs: [run("r2", 2)], next: "c2" } },
      { type: "ask", seq: 2, key: A },
    ]);
    expect(searchView(paged, A).stale).toBe(false);
    const s = searchReducer(paged, { type: "first", seq: 2, page: { runs: [run("r4", 4), run("r3", 3)], next: "c3b" }, refresh: true });
    expect(ids(s)).toEqual(["r4", "r3", "r2"]);
    expect(s.runsNext).toBe("c2");
  });

  it("says no run matches only for an answered question, and errors for the latest only", () => {
    const asked = fold([{ type: "ask", seq: 1, key: A }]);
    expect(searchView(asked, A).noMatch).toBe(false);
    const none = searchReducer(asked, { type: "first", seq: 1, page: { runs: [] } });
    expect(searchView(none, A).noMatch).toBe(true);
    const failed = fold([{ type: "ask", seq: 2, key: AB }, { type: "failed", seq: 1, message: "old" }], none);
    expect(failed.error).toBeUndefined();
    const now = searchReducer(failed, { type: "failed", seq: 2, message: "500 boom" });
    expect(now).toMatchObject({ error: "500 boom", loading: false });
    expect(searchView(now, AB).noMatch).toBe(false);
  });
});
