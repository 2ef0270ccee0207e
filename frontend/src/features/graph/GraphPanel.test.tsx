import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, Run } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { GraphPanel } from "./GraphPanel";
import { NodeDetailPanel } from "./NodeDetail";

afterEach(cleanup);

const baseRun = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "waiting", instructions: "Write",
  workspace: "/ws", mode: "ask", provider: "script", model: "", demo: true, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 1,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["pause", "steer", "cancel", "fork"],
} satisfies Run;

const turn: Omit<Event, "run_id" | "seq" | "ts">[] = [
  { type: "node.started", node_id: "root", data: { kind: "agent", label: "demo" } },
  { type: "node.started", node_id: "u", data: { kind: "user", label: "instructions", parent: "root", text: "Write" } },
  { type: "node.started", node_id: "m1", data: { kind: "llm", label: "model call 1", parent: "root", after: ["u"] } },
  { type: "node.finished", node_id: "m1", data: { status: "succeeded", duration_ms: 3 } },
  { type: "node.started", node_id: "a", data: { kind: "tool", label: "read_file", tool: "read_file", parent: "root", after: ["m1"] } },
  { type: "node.finished", node_id: "a", data: { status: "succeeded", duration_ms: 1, output: "x" } },
  { type: "node.started", node_id: "b", data: { kind: "tool", label: "grep", tool: "grep", parent: "root", after: ["m1"] } },
  { type: "node.finished", node_id: "b", data: { status: "succeeded", duration_ms: 1, output: "y" } },
  { type: "node.started", node_id: "m2", data: { kind: "llm", label: "model call 2", parent: "root", after: ["a", "b"] } },
  { type: "node.finished", node_id: "m2", data: { status: "succeeded", duration_ms: 3 } },
  { type: "node.started", node_id: "w", data: { kind: "tool", label: "write_file", tool: "write_file", parent: "root", after: ["m2"], arguments: { path: "a.txt" }, risk: "write" } },
  { type: "approval.requested", node_id: "w", data: { interaction_id: "ia_1", tool: "write_file", arguments: { path: "a.txt" }, risk: "write", reason: "ask" } },
];

function setup(ui: "graph" | { node: string }, run: Run = baseRun, events = turn) {
  const calls: { url: string; body: unknown }[] = [];
  const fetchFake = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (init?.method === "POST") {
      const body = JSON.parse(String(init.body)) as Record<string, unknown>;
      calls.push({ url, body });
      if (url.endsWith("/commands")) return Response.json({ command_id: body["command_id"], status: "accepted" });
      return Response.json({ id: "ia_1", status: "answered" });
    }
    return new Response(JSON.stringify({ error: { code: "not_found", message: "no" } }), { status: 404 });
  });
  const store = createAppStore({ runs: [{ ...run, last_seq: events.length }], selectedRunId: run.id });
  store.getState().applyEvents(events.map((e, i) => ({ run_id: run.id, seq: i + 1, ts: i, ...e })));
  const services: Services = {
    api: createApi({ fetch: fetchFake as unknown as typeof fetch }),
    store,
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(
    <ServicesProvider value={services}>
      {ui === "graph" ? <GraphPanel runId={run.id} /> : <NodeDetailPanel runId={run.id} nodeId={ui.node} onClose={() => {}} />}
    </ServicesProvider>,
  );
  return { calls, store };
}

const drawn = () => screen.getAllByTestId("graph-node").map((n) => n.dataset["nodeId"]);

describe("GraphPanel", () => {
  it("shows a small run's turns open, folds one on a click, and keeps a turn that waits open", async () => {
    setup("graph");
    await waitFor(() => expect(drawn()).toEqual(["root", "u", "m1", "a", "b", "m2", "w"]));
    const fold = screen.getAllByTestId("graph-fold").find((b) => b.dataset["nodeId"] === "m1")!;
    expect(fold.textContent).toContain("2 tools");
    expect(fold.getAttribute("aria-expanded")).toBe("true");
    fireEvent.click(fold);
    await waitFor(() => expect(drawn()).toEqual(["root", "u", "m1", "m2", "w"]));
    fireEvent.click(screen.getAllByTestId("graph-fold").find((b) => b.dataset["nodeId"] === "m1")!);
    await waitFor(() => expect(drawn()).toEqual(["root", "u", "m1", "a", "b", "m2", "w"]));
    // The second turn holds the waiting write: it is open, and says what it writes.
    const open = screen.getAllByTestId("graph-fold").find((b) => b.dataset["nodeId"] === "m2")!;
    expect(open.getAttribute("aria-expanded")).toBe("true");
    const w = screen.getAllByTestId("graph-node").find((n) => n.dataset["nodeId"] === "w")!;
    expect(within(w).getByTestId("graph-node-what").textContent).toBe("a.txt");
    expect(w.textContent).toContain("waiting");
  });

  it("shows a selected node's details with its legal actions", async () => {
    const { store } = setup("graph");
    act(() => store.getState().selectNode("w"));
    const detail = await screen.findByRole("complementary", { name: "Node details" });
    expect(within(detail).getByTestId("node-action-approve")).toBeTruthy();
    expect(within(detail).getByTestId("node-action-pause").textContent).toBe("Pause at next safe point");
    expect(within(detail).queryByTestId("node-action-fork")).toBeNull(); // not finished
  });
});

describe("NodeActions", () => {
  it("approves a pending approval from the node", async () => {
    const { calls } = setup({ node: "w" });
    fireEvent.click(screen.getByTestId("node-action-approve"));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]!.url).toBe("/api/v1/interactions/ia_1/answer");
    expect(calls[0]!.body).toMatchObject({ decision: "approve" });
  });

  it("denies with a reason", async () => {
    const { calls } = setup({ node: "w" });
    fireEvent.click(screen.getByTestId("node-action-deny"));
    fireEvent.change(screen.getByRole("textbox", { name: "Reason for denying" }), { target: { value: "not now" } });
    fireEvent.click(screen.getByTestId("node-action-deny-confirm"));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]!.body).toMatchObject({ decision: "deny", feedback: "not now" });
  });

  it("offers fork from a finished node, and no approval or pause on a finished run", () => {
    setup({ node: "m1" }, { ...baseRun, status: "completed", capabilities: ["fork"] });
    expect(screen.getByTestId("node-action-fork").textContent).toBe("Fork from here");
    expect(screen.queryByTestId("node-action-approve")).toBeNull();
    expect(screen.queryByTestId("node-action-pause")).toBeNull();
  });

  it("retries or skips the interrupted call the paused run waits on, and only that one", async () => {
    const next = { kind: "tool", node_id: "w", tool: "write_file", interrupted: true };
    const events: Omit<Event, "run_id" | "seq" | "ts">[] = [
      ...turn.slice(0, 11),
      { type: "node.finished", node_id: "w", data: { status: "interrupted", duration_ms: 0 } },
      { type: "run.status", data: { status: "paused", reason: "recovered", next } },
    ];
    const run = { ...baseRun, status: "paused", next, capabilities: ["retry", "skip", "steer", "cancel", "fork"] } as Run;
    const { calls } = setup({ node: "w" }, run, events);
    const retry = screen.getByTestId("node-action-retry") as HTMLButtonElement;
    expect(retry.disabled).toBe(false);
    fireEvent.click(retry);
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]!.body).toMatchObject({ type: "retry", node_id: "w" });
    expect((screen.getByTestId("node-action-skip") as HTMLButtonElement).title).toContain("outcome is unknown");
    expect(screen.queryByTestId("node-action-pause")).toBeNull();
  });
});
