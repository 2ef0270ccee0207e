import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, NodeDetail, Run } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { RunView } from "../transcript/RunView";
import { NodeDetailPanel } from "./NodeDetail";

afterEach(cleanup);

const run = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "paused", instructions: "Write hello.txt",
  workspace: "/ws", mode: "ask", provider: "script", model: "", demo: true, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 4, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 12, output_tokens: 5, cached_tokens: 0, cost_usd: 0 }, capabilities: ["continue", "fork"],
} satisfies Run;

const events: Event[] = [
  { run_id: "run_1", seq: 1, ts: 1000, type: "node.started", node_id: "n1", data: { kind: "agent", label: "demo" } },
  { run_id: "run_1", seq: 2, ts: 1000, type: "node.started", node_id: "n2", data: { kind: "user", label: "instructions", parent: "n1", text: "Write hello.txt" } },
  { run_id: "run_1", seq: 3, ts: 1001, type: "node.started", node_id: "n3", data: { kind: "llm", label: "model call 1", parent: "n1", after: ["n2"], model: "script" } },
  {
    run_id: "run_1", seq: 4, ts: 1701, type: "node.finished", node_id: "n3",
    data: { status: "succeeded", duration_ms: 700, text: "I will write the file.", usage: { input_tokens: 12, output_tokens: 5, cached_tokens: 0 },
      tool_calls: [{ id: "c1", name: "write_file", arguments: { path: "hello.txt" } }] },
  },
];

const detail: NodeDetail = {
  node: {
    id: "n3", kind: "llm", status: "succeeded", label: "model call 1", parent: "n1", after: ["n2"],
    started_at: 1001, finished_at: 1701, duration_ms: 700, attempts: 2, usage: { input_tokens: 12, output_tokens: 5, cached_tokens: 0, cost_usd: 0 },
  },
  events: events.filter((e) => e.node_id === "n3"),
  input: [
    { role: "user", text: "You are a demo." },
    { role: "user", text: "Write hello.txt" },
  ],
};

function setup(ui: "panel" | "view") {
  const fetchFake = vi.fn(async (input: RequestInfo | URL) => {
    if (String(input).endsWith("/runs/run_1/nodes/n3")) return Response.json(detail);
    return new Response(JSON.stringify({ error: { code: "not_found", message: "no" } }), { status: 404 });
  });
  const store = createAppStore({ runs: [run], selectedRunId: run.id });
  events.forEach((e) => store.getState().applyEvent(e));
  const services: Services = {
    api: createApi({ fetch: fetchFake as unknown as typeof fetch }),
    store,
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  const onClose = vi.fn();
  render(
    <ServicesProvider value={services}>
      {ui === "panel" ? <NodeDetailPanel runId="run_1" nodeId="n3" onClose={onClose} /> : <RunView />}
    </ServicesProvider>,
  );
  return { fetchFake, onClose };
}

describe("NodeDetailPanel", () => {
  it("fetches the node and shows its facts, its input messages, its response and a fork action", async () => {
    const { fetchFake } = setup("panel");
    const panel = screen.getByRole("complementary", { name: "Node details" });
    expect(within(panel).getByRole("heading", { name: "model call 1" })).toBeTruthy();
    expect(within(panel).getByText("700 ms")).toBeTruthy();
    expect(within(panel).getByText("12 in / 5 out")).toBeTruthy();

    await waitFor(() => expect(within(panel).getByText("Input (2 messages)")).toBeTruthy());
    expect(fetchFake.mock.calls[0]![0]).toBe("/api/v1/runs/run_1/nodes/n3");
    expect(within(panel).getByText("You are a demo.")).toBeTruthy();
    expect(within(panel).getByText("I will write the file.")).toBeTruthy();
    expect(within(panel).getByText(/write_file\(/)).toBeTruthy();
    expect(within(panel).getByText("Attempts").nextSibling?.textContent).toBe("2");
    expect(within(panel).getByRole("button", { name: "Fork from here" })).toBeTruthy();
  });

  it("says so when the node cannot be loaded", async () => {
    const fetchFake = vi.fn(async () => new Response(JSON.stringify({ error: { code: "not_found", message: "run has no node" } }), { status: 404 }));
    const store = createAppStore({ runs: [run] });
    render(
      <ServicesProvider value={{ api: createApi({ fetch: fetchFake as unknown as typeof fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
        <NodeDetailPanel runId="run_1" nodeId="nx" onClose={() => {}} />
      </ServicesProvider>,
    );
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("run has no node"));
  });
});

describe("RunView panes", () => {
  it("shows the transcript and the graph side by side, each a named section", () => {
    setup("view");
    expect(screen.getByRole("region", { name: "Transcript" })).toBeTruthy();
    expect(screen.getByRole("region", { name: "Graph" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Both" }).getAttribute("aria-pressed")).toBe("true");
  });
});
