import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, FilesView, Run } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { RunView } from "../transcript/RunView";

afterEach(cleanup);

const run = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "paused", instructions: "Tidy up",
  workspace: "/ws", mode: "edits", provider: "script", model: "", demo: true, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["continue", "cancel"],
} satisfies Run;

const events: Omit<Event, "run_id" | "seq" | "ts">[] = [
  { type: "run.status", data: { status: "paused" } },
  { type: "node.started", node_id: "n_p", data: { kind: "tool", label: "apply_patch", tool: "apply_patch", arguments: {}, risk: "write" } },
  { type: "file.changed", node_id: "n_p", data: { path: "a.txt", before: "s1", after: "s2", size: 3, source: "tool", op: "n_p" } },
  { type: "file.changed", node_id: "n_p", data: { path: "new.txt", after: "s3", size: 3, source: "tool", op: "n_p" } },
  { type: "file.changed", data: { path: "a.txt", before: "s2", after: "s4", size: 3, source: "external", op: "ext_1" } },
];

const view: FilesView = {
  files: [
    { path: "a.txt", status: "modified", external: true, changes: [] },
    { path: "new.txt", status: "added", external: false, diff: "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n", changes: [] },
  ],
};

function setup() {
  localStorage.removeItem("steward.runPanes");
  const fetchMock = vi.fn(async () => Response.json(view));
  const store = createAppStore({ runs: [{ ...run, last_seq: events.length }], selectedRunId: run.id });
  events.forEach((e, i) => store.getState().applyEvent({ run_id: run.id, seq: i + 1, ts: 1000 + i, ...e }));
  render(
    <ServicesProvider value={{ api: createApi({ fetch: fetchMock as unknown as typeof fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
      <RunView />
    </ServicesProvider>,
  );
  return { store, fetchMock };
}

describe("the Files tab", () => {
  it("counts the distinct files the run changed, and fetches only once shown", async () => {
    const { fetchMock } = setup();
    const tab = screen.getByTestId("files-tab");
    expect(within(tab).getByTestId("files-count").textContent).toBe("2");
    expect(screen.queryByTestId("files-view")).toBeNull();
    // The header reads the run's budgets; the files are not read yet.
    expect(fetchMock).not.toHaveBeenCalledWith("/api/v1/runs/run_1/files", expect.anything());
    fireEvent.click(tab);
    expect(tab.getAttribute("aria-pressed")).toBe("true");
    expect((await screen.findAllByTestId("file-row")).map((r) => r.dataset["path"])).toEqual(["a.txt", "new.txt"]);
    expect(fetchMock).toHaveBeenCalledWith("/api/v1/runs/run_1/files", expect.objectContaining({ method: "GET" }));
    expect(screen.queryByRole("region", { name: "Transcript" })).toBeNull();
  });

  it("lists a tool call's changed files on its card, and opens one's diff in the Files tab", async () => {
    const { store } = setup();
    const card = screen.getByRole("region", { name: "Transcript" }).querySelector<HTMLElement>('article[data-tool="apply_patch"]')!;
    const lines = within(card).getAllByTestId("tool-file");
    expect(lines.map((l) => [l.dataset["path"], l.dataset["kind"]])).toEqual([
      ["a.txt", "modified"],
      ["new.txt", "created"],
    ]);
    fireEvent.click(within(card).getByRole("button", { name: "Show diff of new.txt" }));
    expect(store.getState().runView).toMatchObject({ pane: "files", file: "new.txt" });
    const row = (await screen.findAllByTestId("file-row")).find((r) => r.dataset["path"] === "new.txt")!;
    expect(row.getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByTestId("file-diff").textContent).toContain("+hi");
  });

  it("forgets the file and node focus when another run is selected, keeping the pane", () => {
    const { store } = setup();
    store.getState().showFile("a.txt");
    store.getState().selectNode("n_p");
    store.getState().select("run_2");
    expect(store.getState().runView).toEqual({ pane: "files" });
  });
});
