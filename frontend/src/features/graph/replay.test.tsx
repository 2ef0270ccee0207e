import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, Run } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { emptyStream, reduceBatch } from "../../store/reducer";
import { createAppStore } from "../../store/store";
import { GraphPanel } from "./GraphPanel";

// A replay's graph (the recording player's) against a live run's, in jsdom
// with a canvas of 500×400: the scrubber moves a replay far back and forth,
// so it draws only the nodes in view, and its view moves at once.

const run = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "completed", instructions: "Write",
  workspace: "/ws", mode: "ask", provider: "script", model: "", demo: true, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["fork"],
} satisfies Run;

// A chain of model calls, each after the last: a column of 62 nodes, far
// taller than the canvas, and fewer than a live graph renders all of.
const calls = 60;
function chain(): Event[] {
  const out: Omit<Event, "run_id" | "seq" | "ts">[] = [
    { type: "node.started", node_id: "root", data: { kind: "agent", label: "demo" } },
    { type: "node.started", node_id: "u", data: { kind: "user", label: "instructions", parent: "root", text: "Write" } },
  ];
  for (let i = 1; i <= calls; i++) {
    out.push({ type: "node.started", node_id: `m${i}`, data: { kind: "llm", label: `model call ${i}`, parent: "root", after: [i === 1 ? "u" : `m${i - 1}`] } });
    out.push({ type: "node.finished", node_id: `m${i}`, data: { status: "succeeded", duration_ms: 3 } });
  }
  return out.map((e, i) => ({ run_id: run.id, seq: i + 1, ts: i, ...e }));
}

beforeEach(() => {
  const box = (prop: "width" | "height") =>
    function (this: HTMLElement) {
      return this.classList.contains("graph-canvas") || this.classList.contains("react-flow") ? { width: 500, height: 400 }[prop] : 0;
    };
  vi.spyOn(HTMLElement.prototype, "clientWidth", "get").mockImplementation(box("width"));
  vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockImplementation(box("height"));
  vi.spyOn(HTMLElement.prototype, "offsetWidth", "get").mockImplementation(box("width"));
  vi.spyOn(HTMLElement.prototype, "offsetHeight", "get").mockImplementation(box("height"));
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function setup(replay: boolean) {
  const events = chain();
  const store = createAppStore({ runs: [{ ...run, last_seq: events.length }], selectedRunId: run.id });
  store.getState().applyEvents(events);
  const services = { api: createApi({ fetch: vi.fn() as unknown as typeof fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() };
  render(
    <ServicesProvider value={services}>
      <GraphPanel runId={run.id} replay={replay} />
    </ServicesProvider>,
  );
  return { store, events };
}

const drawn = () => screen.queryAllByTestId("graph-node").length;
const viewport = () => (document.querySelector(".react-flow__viewport") as HTMLElement).style.transform;

describe("a replay's graph", () => {
  it("draws only the nodes in view, where a live run's draws all of a graph this small", async () => {
    setup(false);
    await waitFor(() => expect(drawn()).toBe(calls + 2));
    cleanup();

    setup(true);
    await waitFor(() => expect(drawn()).toBeGreaterThan(0));
    expect(drawn()).toBeLessThan(10);
  });

  it("moves its view to the running node at once when the scrubber goes back", async () => {
    const { store, events } = setup(true);
    await waitFor(() => expect(drawn()).toBeGreaterThan(0));
    const before = viewport();
    // Back to where the 45th model call was running, far above the view:
    // it is shown in the same task, without frames of animation.
    const at = events.findIndex((e) => e.type === "node.started" && e.node_id === "m45") + 1;
    act(() => store.setState({ stream: reduceBatch(emptyStream, events.slice(0, at)) }));
    expect(viewport()).not.toBe(before);
    expect(screen.getAllByTestId("graph-node").map((n) => n.dataset["nodeId"])).toContain("m45");
  });
});
