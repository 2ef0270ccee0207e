import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { createElement, memo, type ComponentType, type FunctionComponent } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, Run } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { nextTask } from "../../store/historyFold";
import { createAppStore } from "../../store/store";
import { RunView } from "./RunView";

// What a streamed delta costs the page: it changes one model message, so
// it must render that message and nothing else: not the other rows of the
// transcript, not the run's header and controls, not the graph. The
// components are counted where they render (their own store subscriptions
// included), not where their parent does.
const renders = vi.hoisted(() => new Map<string, number>());
const count = (name: string) => renders.set(name, (renders.get(name) ?? 0) + 1);

// counted wraps a component so that each of its renders is counted under
// name (and the node it shows); a memo component keeps its memo.
function counted<P extends object>(name: string, C: ComponentType<P>): ComponentType<P> {
  const inner = (C as unknown as { type?: FunctionComponent<P> }).type;
  const label = (p: P) => (p as { nodeId?: string }).nodeId;
  if (inner) {
    return memo(function Counted(props: P) {
      const l = label(props);
      count(l ? `${name}:${l}` : name);
      return inner(props);
    }) as unknown as ComponentType<P>;
  }
  return function Counted(props: P) {
    const l = label(props);
    count(l ? `${name}:${l}` : name);
    return (C as FunctionComponent<P>)(props);
  };
}

vi.mock("./Messages", async (importOriginal) => {
  const m = await importOriginal<typeof import("./Messages")>();
  return { ...m, LlmMessage: counted("LlmMessage", m.LlmMessage), UserNodeMessage: counted("UserNodeMessage", m.UserNodeMessage) };
});
vi.mock("./ToolCard", async (importOriginal) => {
  const m = await importOriginal<typeof import("./ToolCard")>();
  return { ...m, ToolCard: counted("ToolCard", m.ToolCard) };
});
vi.mock("../controls/RunControls", async (importOriginal) => {
  const m = await importOriginal<typeof import("../controls/RunControls")>();
  return { ...m, RunControls: counted("RunControls", m.RunControls) };
});
// ReactFlow is a forwardRef: counted as an element, i.e. each time the
// graph's canvas renders it.
vi.mock("@xyflow/react", async (importOriginal) => {
  const m = await importOriginal<typeof import("@xyflow/react")>();
  const Flow = m.ReactFlow as ComponentType<object>;
  return {
    ...m,
    ReactFlow: function CountedFlow(props: object) {
      count("ReactFlow");
      return createElement(Flow, props);
    },
  };
});

beforeEach(() => {
  localStorage.clear();
  renders.clear();
});
afterEach(cleanup);

const run = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "running", instructions: "Tidy up",
  workspace: "/ws", mode: "edits", provider: "script", model: "", demo: true, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["pause", "steer", "cancel", "fork"],
} satisfies Run;

const history: Omit<Event, "run_id" | "seq" | "ts">[] = [
  { type: "run.status", data: { status: "running" } },
  { type: "node.started", node_id: "root", data: { kind: "agent", label: "demo" } },
  { type: "node.started", node_id: "u", data: { kind: "user", label: "instructions", parent: "root", text: "Tidy up the notes" } },
  { type: "node.started", node_id: "m1", data: { kind: "llm", label: "model call 1", parent: "root", after: ["u"] } },
  { type: "node.finished", node_id: "m1", data: { status: "succeeded", duration_ms: 5, text: "I will list the notes.\n\nThen edit them." } },
  { type: "node.started", node_id: "ls", data: { kind: "tool", label: "list_dir", tool: "list_dir", parent: "m1", arguments: { path: "notes" }, after: ["m1"] } },
  { type: "node.finished", node_id: "ls", data: { status: "succeeded", duration_ms: 2, output: "a.md\nb.md" } },
  { type: "node.started", node_id: "m2", data: { kind: "llm", label: "model call 2", parent: "root", after: ["ls"] } },
];

// The streamed answer, a word a delta, with a paragraph break and a list.
const words = "The notes are tidy now.\n\nWhat changed:\n\n- a.md: spelling\n- b.md: headings\n\nNothing else was touched.".split(/(?<= )/);

// settled lets the work React scheduled in tasks of its own (transitions,
// deferred values) run until a task passes with nothing to do.
async function settled() {
  for (let i = 0; i < 5; i++) await act(() => nextTask());
}

describe("a streamed delta", () => {
  // Also before the REST copy of the run arrived: the header's selectors
  // must then give equal values too, or the page would render for ever.
  it.each([
    { known: "the run and its events", runs: [{ ...run, last_seq: history.length }] },
    { known: "only the run's events", runs: [] },
  ])("renders the streaming message, and no other row, nor the header, nor the graph ($known)", async ({ runs }) => {
    const store = createAppStore({ runs, selectedRunId: run.id, runView: { pane: "both" } });
    store.getState().applyEvents(history.map((e, i) => ({ run_id: run.id, seq: i + 1, ts: 1000 + i, ...e })));
    render(
      <ServicesProvider value={{ api: createApi({ fetch: vi.fn() }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
        <RunView />
      </ServicesProvider>,
    );
    expect(renders.get("LlmMessage:m1")).toBeGreaterThan(0);
    expect(renders.get("UserNodeMessage:u")).toBeGreaterThan(0);
    expect(renders.get("ToolCard:ls")).toBeGreaterThan(0);
    expect(renders.get("RunControls")).toBeGreaterThan(0);
    // The graph mounts a task after the rest, in a transition (ui/Later.tsx),
    // and renders its graph deferred: all of it done before the deltas.
    await waitFor(() => expect(renders.get("ReactFlow")).toBeGreaterThan(0));
    await settled();
    const before = new Map(renders);

    let seq = history.length;
    for (const w of words) {
      act(() => store.getState().applyEvent({ run_id: run.id, seq: ++seq, ts: 2000 + seq, type: "llm.delta", node_id: "m2", data: { text: w } }));
    }

    const streamed = (renders.get("LlmMessage:m2") ?? 0) - (before.get("LlmMessage:m2") ?? 0);
    expect(streamed).toBe(words.length);
    for (const name of ["LlmMessage:m1", "UserNodeMessage:u", "ToolCard:ls", "RunControls", "ReactFlow"]) {
      expect({ name, renders: renders.get(name) }).toEqual({ name, renders: before.get(name) });
    }
    const m2 = screen.getAllByTestId("llm-message").find((e) => e.dataset["nodeId"] === "m2")!;
    expect(m2.querySelectorAll("p")).toHaveLength(3);
    expect(m2.querySelectorAll("li")).toHaveLength(2);
    expect(m2.textContent).toContain("Nothing else was touched.");
  });
});
