import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, Run } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { GraphPanel } from "./GraphPanel";

afterEach(cleanup);

const run = (id: string): Run => ({
  id, agent_id: "ag_1", agent_name: "demo", status: "completed", instructions: "Write",
  workspace: "/ws", mode: "ask", provider: "script", model: "", demo: true, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["fork"],
});

type E = Omit<Event, "run_id" | "seq" | "ts">;
const agent = { id: "ag_1", name: "demo", provider: "script", model: "" };
const source: E[] = [
  { type: "run.created", data: { agent, instructions: "Write", workspace: "/ws", mode: "ask", max_steps: 10 } },
  { type: "node.started", node_id: "root", data: { kind: "agent", label: "demo" } },
  { type: "node.started", node_id: "u", data: { kind: "user", label: "instructions", parent: "root", text: "Write" } },
  { type: "node.started", node_id: "m1", data: { kind: "llm", label: "model call 1", parent: "root", after: ["u"] } },
  { type: "node.finished", node_id: "m1", data: { status: "succeeded", duration_ms: 3 } },
];
const fork = (id: string): E[] => [
  { type: "run.created", data: { agent, instructions: "Write", workspace: "/ws", mode: "ask", max_steps: 10, forked_from: { run_id: "run_src", node_id: "m1" } } },
  { type: "node.started", node_id: "froot", data: { kind: "agent", label: `demo (fork of run_src at m1) ${id}` } },
];

// setup loads the runs' events into a store, as the sync does, and shows
// the graph of the run shown.
function setup(shown: string, runs: Record<string, E[]>, fetchFake: typeof fetch = vi.fn() as unknown as typeof fetch) {
  const store = createAppStore({ runs: Object.keys(runs).map(run), selectedRunId: shown });
  for (const [id, events] of Object.entries(runs)) store.getState().applyEvents(events.map((e, i) => ({ run_id: id, seq: i + 1, ts: i, ...e })));
  const services: Services = {
    api: createApi({ fetch: fetchFake }),
    store,
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(
    <ServicesProvider value={services}>
      <GraphPanel runId={shown} />
    </ServicesProvider>,
  );
  return store;
}

const notFound = (async () => Response.json({ error: { code: "not_found", message: "no such run" } }, { status: 404 })) as unknown as typeof fetch;

describe("fork links in the graph", () => {
  it("names a source that is not on this machine, without a link, and a click on it opens nothing", async () => {
    const store = setup("run_f", { run_f: fork("run_f") }, notFound);
    const origin = await screen.findByTestId("graph-origin");
    await waitFor(() => expect(within(origin).getByTestId("run-elsewhere").textContent).toBe("run run_src (not on this machine)"));
    expect(within(origin).queryByRole("link")).toBeNull();
    fireEvent.click(origin);
    expect(store.getState().selectedRunId).toBe("run_f");
  });

  it("marks a fork that is not on this machine without a link to it", async () => {
    const forked: E[] = [...source, { type: "run.forked", data: { node_id: "m1", fork: "run_far" } }];
    setup("run_src", { run_src: forked }, notFound);
    await waitFor(() => expect(screen.getByTestId("graph-fork-badge").title).toBe("Forked into run run_far, which is not on this machine"));
    expect(screen.queryByRole("button", { name: "Open fork run_far" })).toBeNull();
  });

  it("shows a fork's origin above its first node; its link opens the source run at the node", async () => {
    const store = setup("run_f", { run_src: source, run_f: fork("run_f") });
    const origin = await screen.findByTestId("graph-origin");
    expect(origin.textContent).toContain("forked from run_src · model call 1");
    expect(document.querySelector('[data-testid="rf__edge-fork:origin:run_src:m1->froot"]')).toBeTruthy();
    const link = within(origin).getByRole("link", { name: "Open run run_src, at model call 1, which this run was forked from" });
    expect(link.getAttribute("href")).toBe("#run=run_src");
    fireEvent.click(link);
    expect(store.getState().selectedRunId).toBe("run_src");
    expect(store.getState().runView.node).toBe("m1");
  });

  it("opens the source run on a click anywhere on the origin, and never selects the origin itself", async () => {
    const store = setup("run_f", { run_f: fork("run_f") });
    const origin = await screen.findByTestId("graph-origin");
    // The source run is not in the store: the node's id stands for its label.
    expect(origin.textContent).toContain("forked from run_src · m1");
    fireEvent.click(origin);
    expect(store.getState().selectedRunId).toBe("run_src");
    expect(store.getState().runView.node).toBe("m1");
  });

  it("marks a node runs were forked from; with one fork the badge opens it, without selecting the node", async () => {
    const forked: E[] = [...source, { type: "run.forked", data: { node_id: "m1", fork: "run_f" } }];
    const store = setup("run_src", { run_src: forked });
    const badge = await screen.findByRole("button", { name: "Open fork run_f" });
    expect(badge.dataset["nodeId"]).toBe("m1");
    expect(badge.textContent).toBe("1");
    expect(badge.querySelector("svg.fork-icon")).not.toBeNull();
    fireEvent.click(badge);
    expect(store.getState().selectedRunId).toBe("run_f");
    expect(store.getState().runView.node).toBeUndefined();
  });

  it("lists several forks of a node, each opening its run", async () => {
    const forked: E[] = [
      ...source,
      { type: "run.forked", data: { node_id: "m1", fork: "run_f1" } },
      { type: "run.forked", data: { node_id: "m1", fork: "run_f2" } },
    ];
    const store = setup("run_src", { run_src: forked });
    const badge = await screen.findByRole("button", { name: "2 forks of this node" });
    expect(badge.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(badge);
    const list = screen.getByRole("list", { name: "Forks of m1" });
    expect(within(list).getAllByRole("button").map((b) => b.textContent)).toEqual(["run_f1", "run_f2"]);
    fireEvent.click(within(list).getByRole("button", { name: "Open fork run_f2" }));
    await waitFor(() => expect(store.getState().selectedRunId).toBe("run_f2"));
    expect(store.getState().runView.node).toBeUndefined();
  });

  it("draws no origin for a run that was not forked", async () => {
    setup("run_src", { run_src: source });
    await screen.findAllByTestId("graph-node");
    expect(screen.queryByTestId("graph-origin")).toBeNull();
  });
});
