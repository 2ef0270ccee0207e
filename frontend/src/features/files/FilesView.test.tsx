import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { createApi } from "../../api/client";
import type { FilesView as FilesViewT, RestoreResult, Run } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { FilesView } from "./FilesView";

afterEach(cleanup);

const runId = "run_1";

const run = {
  id: runId, agent_id: "ag_1", agent_name: "demo", status: "paused", instructions: "Tidy up",
  workspace: "/ws", mode: "edits", provider: "script", model: "", demo: true, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["continue", "cancel"],
} satisfies Run;

const view: FilesViewT = {
  files: [
    {
      path: "notes.txt",
      status: "modified",
      external: false,
      diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n",
      changes: [
        { seq: 5, node_id: "n_patch", op: "n_patch", source: "tool", before: "s1", after: "s2", size: 8, created_at: 1000,
          diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n" },
      ],
    },
    {
      path: "build/out.bin",
      status: "added",
      external: true,
      diff_note: "binary file: 0 bytes before, 12 after",
      changes: [
        { seq: 7, node_id: "n_cmd", op: "n_cmd", source: "command", after: "s3", size: 12, created_at: 2000,
          diff_note: "binary file: 0 bytes before, 12 after" },
        { seq: 9, op: "ext_1", source: "external", before: "s3", after: "s4", size: 12, created_at: 3000, before_unknown: true,
          diff_note: "what the file held before is not known" },
      ],
    },
    {
      path: "todo.md",
      status: "added",
      external: false,
      diff: "--- /dev/null\n+++ b/todo.md\n@@ -0,0 +1 @@\n+x\n",
      changes: [{ seq: 6, node_id: "n_patch", op: "n_patch", source: "tool", after: "s5", size: 2, created_at: 1000 }],
    },
  ],
};

type Answer = { status: number; body: unknown };

// server plays GET /files and the restore posts; restore answers come from
// the queue given, in order.
function server(answers: Answer[] = []) {
  const calls: { method: string; url: string; body?: unknown }[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const method = init?.method ?? "GET";
    const url = String(input);
    calls.push({ method, url, body: init?.body ? JSON.parse(String(init.body)) : undefined });
    if (method === "GET") return Response.json(view);
    const a = answers.shift() ?? { status: 500, body: { error: { code: "internal", message: "no answer" } } };
    return Response.json(a.body, { status: a.status });
  });
  const gets = () => calls.filter((c) => c.method === "GET").length;
  const posts = () => calls.filter((c) => c.method === "POST").map((c) => [c.url, c.body]);
  return { fetchMock: fetchMock as unknown as typeof fetch, gets, posts };
}

function renderView(fetchMock: typeof fetch, status: Run["status"] = "paused") {
  const store = createAppStore({ runs: [{ ...run, status }], selectedRunId: runId, runView: { pane: "files" } });
  render(
    <ServicesProvider value={{ api: createApi({ fetch: fetchMock }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
      <FilesView runId={runId} />
    </ServicesProvider>,
  );
  return store;
}

const undone: RestoreResult = {
  op: "undo_1",
  changes: [
    { path: "notes.txt", before: "s2", after: "s1", size: 8, source: "undo", op: "undo_1", undoes: "n_patch" },
    { path: "todo.md", before: "s5", size: 0, source: "undo", op: "undo_1", undoes: "n_patch" },
  ],
};

describe("FilesView", () => {
  it("lists generated and ignored files only when asked", async () => {
    const withCache: FilesViewT = {
      files: [...view.files, { path: "src/__pycache__/calc.pyc", status: "added", external: true, ignored: true, changes: [] }],
    };
    const fetchMock = vi.fn(async () => Response.json(withCache)) as unknown as typeof fetch;
    renderView(fetchMock);
    const rows = await screen.findAllByTestId("file-row");
    expect(rows.map((r) => r.dataset["path"])).toEqual(["notes.txt", "build/out.bin", "todo.md"]);
    const toggle = screen.getByTestId("show-ignored");
    expect(toggle.textContent).toBe("Show 1 generated or ignored");
    fireEvent.click(toggle);
    expect(screen.getAllByTestId("file-row").map((r) => r.dataset["path"])).toContain("src/__pycache__/calc.pyc");
  });

  it("lists the changed files with status and where outside changes came from", async () => {
    const { fetchMock } = server();
    renderView(fetchMock);
    const rows = await screen.findAllByTestId("file-row");
    expect(rows.map((r) => [r.dataset["path"], r.dataset["status"]])).toEqual([
      ["notes.txt", "modified"],
      ["build/out.bin", "added"],
      ["todo.md", "added"],
    ]);
    expect(within(rows[0]!).queryByTestId("file-external")).toBeNull();
    expect(within(rows[1]!).getByTestId("file-external").textContent).toBe("changed by a command and outside the run");
    // The first file is selected: its whole-run diff, as a diff.
    expect(rows[0]!.getAttribute("aria-pressed")).toBe("true");
    const diff = screen.getByTestId("file-diff");
    expect([...diff.querySelectorAll<HTMLElement>(".diff-row")].map((r) => [r.dataset["kind"], r.querySelector("code")?.textContent])).toEqual([
      ["hunk", "@@ -1,2 +1,2 @@"],
      ["ctx", " one"],
      ["del", "-two"],
      ["add", "+2"],
    ]);
  });

  it("selects a file: its note instead of a diff, and its changes in order", async () => {
    const { fetchMock } = server();
    const store = renderView(fetchMock);
    fireEvent.click((await screen.findAllByTestId("file-row"))[1]!);
    expect(store.getState().runView.file).toBe("build/out.bin");
    const detail = screen.getByRole("region", { name: "File build/out.bin" });
    expect(within(detail).queryByTestId("file-diff")).toBeNull();
    expect(within(detail).getAllByText("binary file: 0 bytes before, 12 after").length).toBeGreaterThan(0);
    const changes = within(detail).getAllByTestId("change-row");
    expect(changes.map((c) => [c.dataset["op"], c.dataset["source"]])).toEqual([
      ["n_cmd", "command"],
      ["ext_1", "external"],
    ]);
    // A change made outside, from an unknown before, cannot be undone.
    expect(within(changes[1]!).getByTestId<HTMLButtonElement>("undo-op").disabled).toBe(true);
    expect(within(changes[1]!).queryByTestId("rewind-node")).toBeNull();
  });

  it("opens a change's own diff on demand", async () => {
    const { fetchMock } = server();
    renderView(fetchMock);
    const change = (await screen.findAllByTestId("change-row"))[0]!;
    expect(within(change).queryByTestId("file-diff")).toBeNull();
    fireEvent.click(within(change).getByText("Diff of this change"));
    await waitFor(() => expect(within(change).getByTestId("file-diff")).toBeTruthy());
  });

  it("undoes an op, reads the files again and offers to undo the undo", async () => {
    const { fetchMock, gets, posts } = server([
      { status: 200, body: undone },
      { status: 200, body: { op: "undo_2", changes: [undone.changes[0]] } },
    ]);
    renderView(fetchMock);
    const change = (await screen.findAllByTestId("change-row"))[0]!;
    const undo = within(change).getByTestId<HTMLButtonElement>("undo-op");
    expect(undo.title).toBe("Take back this change, with its changes to todo.md");
    fireEvent.click(undo);
    const done = await screen.findByTestId("restore-done");
    expect(done.textContent).toContain("Undone: 2 files.");
    expect(done.textContent).toContain("notes.txt, todo.md");
    await waitFor(() => expect(gets()).toBe(2));
    fireEvent.click(within(done).getByRole("button", { name: "Undo this" }));
    await waitFor(() => expect(screen.getByTestId("restore-done").textContent).toContain("Undone: 1 file."));
    expect(posts()).toEqual([
      ["/api/v1/runs/run_1/files/undo", { op: "n_patch" }],
      ["/api/v1/runs/run_1/files/undo", { op: "undo_1" }],
    ]);
  });

  it("shows a conflict with every file in the way, and changes nothing else", async () => {
    const conflict = {
      error: {
        code: "conflict",
        message: "nothing was changed: notes.txt: changed since",
        conflicts: [
          { path: "notes.txt", reason: "changed since the run wrote it" },
          { path: "todo.md", reason: "a later change touched the file" },
        ],
      },
    };
    const { fetchMock, gets } = server([{ status: 409, body: conflict }]);
    renderView(fetchMock);
    fireEvent.click(within((await screen.findAllByTestId("change-row"))[0]!).getByTestId("rewind-node"));
    const alert = await screen.findByRole("alert");
    expect(alert.dataset["testid"]).toBe("restore-conflicts");
    expect(alert.textContent).toContain("Nothing was changed: 2 files stand in the way.");
    expect(within(alert).getAllByTestId("restore-conflict").map((li) => li.textContent)).toEqual([
      "notes.txt: changed since the run wrote it",
      "todo.md: a later change touched the file",
    ]);
    expect(screen.queryByTestId("restore-done")).toBeNull();
    expect(gets()).toBe(1);
    expect(screen.getAllByTestId("file-row")).toHaveLength(3);
  });

  it("reverts the whole run only after a confirmation", async () => {
    const { fetchMock, posts } = server([{ status: 200, body: { op: "revert_1", changes: undone.changes } }]);
    renderView(fetchMock);
    fireEvent.click(await screen.findByTestId("revert-run"));
    expect(posts()).toEqual([]);
    expect(screen.getByRole("group", { name: "Confirm revert" }).textContent).toContain("all 3 files");
    fireEvent.click(screen.getByTestId("revert-confirm"));
    expect((await screen.findByTestId("restore-done")).textContent).toContain("Reverted: 2 files.");
    expect(posts()).toEqual([["/api/v1/runs/run_1/files/revert", {}]]);
  });

  it("replaces a conflict with the next outcome", async () => {
    // Chromium's scrollIntoView returns a promise: the notice must not hand
    // it to React as an effect cleanup.
    // jsdom has no scrollIntoView.
    const proto = Element.prototype as { scrollIntoView?: unknown };
    const scroll = vi.fn(() => Promise.resolve());
    proto.scrollIntoView = scroll;
    onTestFinished(() => void delete proto.scrollIntoView);
    const conflict = { error: { code: "conflict", message: "nothing was changed", conflicts: [{ path: "notes.txt", reason: "x" }] } };
    const { fetchMock } = server([{ status: 409, body: conflict }, { status: 200, body: { op: "revert_1", changes: undone.changes } }]);
    renderView(fetchMock);
    fireEvent.click(within((await screen.findAllByTestId("change-row"))[0]!).getByTestId("undo-op"));
    await screen.findByTestId("restore-conflicts");
    fireEvent.click(screen.getByTestId("revert-run"));
    fireEvent.click(screen.getByTestId("revert-confirm"));
    expect((await screen.findByTestId("restore-done")).textContent).toContain("Reverted: 2 files.");
    expect(screen.queryByTestId("restore-conflicts")).toBeNull();
    // The notice scrolls itself into view from an effect, which may run
    // after the render that showed it.
    await waitFor(() => expect(scroll).toHaveBeenCalledTimes(2));
  });

  it("rewinds to before a node", async () => {
    const { fetchMock, posts } = server([{ status: 200, body: { op: "rewind_1", changes: undone.changes } }]);
    renderView(fetchMock);
    fireEvent.click(within((await screen.findAllByTestId("change-row"))[0]!).getByTestId("rewind-node"));
    expect((await screen.findByTestId("restore-done")).textContent).toContain("Rewound: 2 files.");
    expect(posts()).toEqual([["/api/v1/runs/run_1/files/rewind", { node_id: "n_patch" }]]);
  });

  it.each(["running", "pausing"] as const)("disables every action while the run is %s", async (status) => {
    const { fetchMock } = server();
    renderView(fetchMock, status);
    const change = (await screen.findAllByTestId("change-row"))[0]!;
    for (const b of [within(change).getByTestId("undo-op"), within(change).getByTestId("rewind-node"), screen.getByTestId("revert-run")]) {
      expect((b as HTMLButtonElement).disabled).toBe(true);
      expect(b.title).toMatch(/^Pause the run first/);
    }
  });

  it("shows a change's node in the graph", async () => {
    const { fetchMock } = server();
    const store = renderView(fetchMock);
    fireEvent.click(within((await screen.findAllByTestId("change-row"))[0]!).getByRole("button", { name: "Show node n_patch in the graph" }));
    expect(store.getState().runView).toMatchObject({ pane: "graph", node: "n_patch" });
  });

  it("reads the files again once after a burst of file.changed events", async () => {
    const { fetchMock, gets } = server();
    const store = renderView(fetchMock);
    await screen.findAllByTestId("file-row");
    expect(gets()).toBe(1);
    act(() => {
      for (let seq = 1; seq <= 3; seq++) {
        store.getState().applyEvent({ run_id: runId, seq, ts: seq, type: "file.changed", data: { path: `f${seq}`, size: 1, source: "external", op: "ext_1" } });
      }
    });
    await waitFor(() => expect(gets()).toBe(2));
    await new Promise((r) => setTimeout(r, 400));
    expect(gets()).toBe(2);
  });
});
