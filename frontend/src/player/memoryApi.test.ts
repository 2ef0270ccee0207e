import { describe, expect, it } from "vitest";
import { isApiError } from "../api/client";
import { emptyStream, reduceBatch } from "../store/reducer";
import { finalText, firstText, pngBase64, runId, testRecording } from "../test/recording";
import { createMemoryApi, readOnlyMessage } from "./memoryApi";
import type { Recording } from "./recording";

// api answers from rec as of the first `at` events, with the reducer's
// state there standing for the store's.
function apiAt(rec: Recording, at: number) {
  const state = reduceBatch(emptyStream, rec.events.slice(0, at));
  return createMemoryApi(rec, { at: () => at, transcript: () => state.runs[runId] });
}

const rec = testRecording();
const n = rec.events.length;
const fileChangedAt = rec.events.findIndex((e) => e.type === "file.changed") + 1;

describe("the in-memory API", () => {
  it("answers the Files tab with diffs made from the embedded contents", async () => {
    const view = await apiAt(rec, n).runFiles(runId);
    expect(view.files).toHaveLength(1);
    const f = view.files[0]!;
    expect(f).toMatchObject({ path: "hello.txt", status: "modified", external: false });
    expect(f.diff).toBe("--- a/hello.txt\n+++ b/hello.txt\n@@ -1 +1 @@\n-hello\n+hello, world\n");
    expect(f.changes).toEqual([
      expect.objectContaining({ seq: fileChangedAt, node_id: "n4", op: "n4", source: "tool", diff: f.diff, created_at: rec.events[fileChangedAt - 1]!.ts }),
    ]);
  });

  it("answers as of the position: no file before its change", async () => {
    expect((await apiAt(rec, fileChangedAt - 1).runFiles(runId)).files).toEqual([]);
    expect((await apiAt(rec, fileChangedAt).runFiles(runId)).files).toHaveLength(1);
  });

  it("says so when a content is not in the recording", async () => {
    const partial = { ...rec, blobs: {} };
    const f = (await apiAt(partial, n).runFiles(runId)).files[0]!;
    expect(f.diff).toBeUndefined();
    expect(f.diff_note).toMatch(/not in this recording/);
  });

  it("answers a node with its events, and a model call with its input", async () => {
    const api = apiAt(rec, n);
    const tool = await api.node(runId, "n4");
    expect(tool.node).toMatchObject({ id: "n4", kind: "tool", status: "succeeded", tool: "write_file", after: ["n3"] });
    expect(tool.events.map((e) => e.type)).toEqual([
      "node.started",
      "policy.decided",
      "approval.requested",
      "approval.decided",
      "tool.executing",
      "file.changed",
      "node.finished",
    ]);
    expect(tool.input).toBeUndefined();

    const first = await api.node(runId, "n3");
    expect(first.input).toEqual([{ role: "user", text: "Write hello.txt" }]);
    expect(first.node.usage).toEqual({ input_tokens: 1200, output_tokens: 80, cost_usd: 0.004 });

    // The second call saw the first answer and both results, the failed
    // one as the model reads it.
    const second = await api.node(runId, "n6");
    expect(second.input).toEqual([
      { role: "user", text: "Write hello.txt" },
      { role: "assistant", text: firstText, tool_calls: expect.any(Array) },
      { role: "tool", tool_call_id: "c1", text: "wrote hello.txt" },
      { role: "tool", tool_call_id: "c2", text: "error timeout: took too long", is_error: true },
    ]);
  });

  it("has no node that had not started at the position", async () => {
    const early = apiAt(rec, 5);
    await expect(early.node(runId, "n6")).rejects.toSatisfy((e) => isApiError(e, "not_found"));
  });

  it("answers the run and its events as of the position", async () => {
    const end = await apiAt(rec, n).run(runId);
    expect(end).toMatchObject({ id: runId, status: "completed", steps: 2, capabilities: [], last_seq: n, agent_name: "Researcher" });
    expect(end.usage).toMatchObject({ input_tokens: 2700, output_tokens: 100 });
    expect((await apiAt(rec, 2).run(runId)).status).toBe("running");

    const page = await apiAt(rec, 10).events(runId, 3, 4);
    expect(page.events.map((e) => e.seq)).toEqual([4, 5, 6, 7]);
    expect(page).toMatchObject({ next_after: 7, more: true });
    await expect(apiAt(rec, n).run("other")).rejects.toSatisfy((e) => isApiError(e, "not_found"));
  });

  it("refuses every write, saying it is a recording", async () => {
    const api = apiAt(rec, n);
    const writes = [
      api.command(runId, { command_id: "x", type: "pause" }),
      api.answer("ia_1", { decision: "approve" }),
      api.undoFiles(runId, "n4"),
      api.revertFiles(runId),
      api.rewindFiles(runId, "n4"),
      api.startRun({ agent: "a", instructions: "i", workspace: "/w" }),
    ];
    for (const w of writes) {
      await expect(w).rejects.toSatisfy((e) => isApiError(e, "forbidden") && (e as Error).message === readOnlyMessage);
    }
  });

  it("serves artifacts from the page, and a picture for one left out", async () => {
    const api = apiAt(rec, n);
    // A blob: URL, made once; a data: URL where there are no object URLs.
    const url = api.artifactUrl(runId, "shot-1.png");
    expect(url === `data:image/png;base64,${pngBase64}` || url.startsWith("blob:")).toBe(true);
    expect(api.artifactUrl(runId, "shot-1.png")).toBe(url);
    expect(api.artifactUrl(runId, "browser.mp4")).toMatch(/^data:image\/svg\+xml,.*not%20included/);
    expect(await api.browserFrame(runId)).toBeUndefined();
  });

  it("says nothing of the run's final state", async () => {
    // The reducer's final state must not leak into an early answer.
    expect(finalText).not.toBe(firstText);
    const early = await apiAt(rec, 7).node(runId, "n3");
    expect(early.events.some((e) => e.type === "node.finished")).toBe(true);
    expect(early.node.status).toBe("succeeded");
    const before = await apiAt(rec, 6).node(runId, "n3");
    expect(before.node.status).toBe("running");
  });
});
