import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, EventType, Run } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore, type AppStore } from "../../store/store";
import { bigRunEvents } from "../../test/bigRun";
import { RunView } from "../transcript/RunView";
import { TimelinePanel } from "./TimelinePanel";
import { tickMs } from "./useTimeline";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  localStorage.clear();
});

const run = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "waiting", instructions: "Write",
  workspace: "/ws", mode: "ask", provider: "script", model: "", demo: true, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 1,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["pause", "steer", "cancel", "fork"],
} satisfies Run;

// T0 is when the test run starts: the clock the tests fake starts there.
const T0 = 1_700_000_000_000;

function events(runId: string, rows: [number, EventType, string | undefined, unknown][], from = 1): Event[] {
  return rows.map(([ts, type, node_id, data], i) => ({ run_id: runId, seq: from + i, ts: T0 + ts, type, node_id, data }));
}

// A model call of 2 s that cost $0.0125, then a write waiting for its approval since 2.5 s.
const waiting = events(run.id, [
  [0, "run.status", undefined, { status: "running" }],
  [0, "node.started", "root", { kind: "agent", label: "demo" }],
  [0, "node.started", "m1", { kind: "llm", label: "model call 1", parent: "root" }],
  [2000, "node.finished", "m1", { status: "succeeded", duration_ms: 2000, cost_usd: 0.0125 }],
  [2000, "node.started", "w", { kind: "tool", label: "write_file", tool: "write_file", parent: "root", after: ["m1"], arguments: { path: "notes/a.txt", content: "hi" }, risk: "write" }],
  [2500, "approval.requested", "w", { interaction_id: "ia_1", tool: "write_file", arguments: {}, risk: "write", reason: "ask" }],
  [2500, "run.status", undefined, { status: "waiting" }],
]);

function setup(evs: Event[], ui: "timeline" | "replay" | "run" = "timeline", runId = run.id): { store: AppStore } {
  const store = createAppStore({ runs: [{ ...run, id: runId, last_seq: evs.length }], selectedRunId: runId });
  store.getState().applyEvents(evs);
  const notFound = async () => new Response(JSON.stringify({ error: { code: "not_found", message: "no" } }), { status: 404 });
  const services: Services = {
    api: createApi({ fetch: vi.fn(notFound) as unknown as typeof fetch }),
    store,
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  const view = ui === "run" ? <RunView /> : <TimelinePanel runId={runId} replay={ui === "replay"} />;
  render(<ServicesProvider value={services}>{view}</ServicesProvider>);
  return { store };
}

const bar = (id: string) => document.querySelector<HTMLButtonElement>(`[data-testid=timeline-bar][data-node-id="${id}"]`)!;

describe("TimelinePanel", () => {
  it("shows each node as a labelled bar, with where the time went and what it cost", () => {
    vi.useFakeTimers({ now: T0 + 3000 });
    setup(waiting);
    expect(screen.getAllByTestId("timeline-bar").map((b) => b.dataset["nodeId"])).toEqual(["root", "m1", "w"]);
    expect(bar("m1").getAttribute("aria-label")).toBe("model call model call 1: 2.0 s, succeeded, $0.0125");
    expect(bar("w").getAttribute("aria-label")).toBe("tool call write_file notes/a.txt: 1.0 s so far, waited 500 ms for you, waiting");
    expect(within(bar("m1")).getByText("$0.0125")).toBeTruthy();
    const totals = screen.getByTestId("timeline-totals");
    expect(totals.getAttribute("aria-label")).toBe("Where the time went: model 67%, tools 17%, waiting for you 16%");
    expect(totals.textContent).toContain("3.0 s so far · $0.0125");
  });

  it("grows the running bars with one clock, and stops it when the run ends", () => {
    vi.useFakeTimers({ now: T0 + 3000 });
    const { store } = setup(waiting);
    expect(vi.getTimerCount()).toBe(1);
    act(() => vi.advanceTimersByTime(4 * tickMs));
    expect(bar("w").getAttribute("aria-label")).toContain("3.0 s so far, waited 2.5 s for you");
    expect(bar("w").querySelector(".tl-bar.open")).toBeTruthy();
    // The finished call is placed in CSS from the run's span: it is not drawn again.
    expect(bar("m1").querySelector<HTMLElement>(".tl-bar")!.style.getPropertyValue("--len")).toBe("2000");
    expect(screen.getByTestId("timeline-pane").querySelector<HTMLElement>(".tl-body")!.style.getPropertyValue("--span")).toBe("5000");

    act(() =>
      store.getState().applyEvents(events(run.id, [
        [5500, "approval.decided", "w", { interaction_id: "ia_1", decision: "deny", source: "web" }],
        [5500, "node.finished", "w", { status: "denied", duration_ms: 3500 }],
        [5600, "node.finished", "root", { status: "cancelled", duration_ms: 5600 }],
        [5600, "run.status", undefined, { status: "cancelled" }],
      ], waiting.length + 1)),
    );
    expect(vi.getTimerCount()).toBe(0);
    expect(bar("w").getAttribute("aria-label")).toBe("tool call write_file notes/a.txt: 3.5 s, waited 3.0 s for you, denied");
    expect(screen.getByTestId("timeline-totals").textContent).not.toContain("so far");
  });

  it("runs no clock in a replay: it is drawn to the last thing its log knows", () => {
    vi.useFakeTimers({ now: T0 + 60_000 });
    setup(waiting, "replay");
    expect(vi.getTimerCount()).toBe(0);
    // The approval was asked at the log's last event: no wait yet.
    expect(bar("w").getAttribute("aria-label")).toBe("tool call write_file notes/a.txt: 500 ms so far, waiting");
    expect(screen.getByTestId("timeline-totals").textContent).not.toContain("so far");
  });

  it("draws the spans the run was paused", () => {
    vi.useFakeTimers({ now: T0 + 4000 });
    setup([
      ...waiting.slice(0, 4),
      ...events(run.id, [
        [2000, "run.status", undefined, { status: "paused", reason: "paused by the user" }],
        [3000, "run.status", undefined, { status: "running" }],
      ], 5),
    ]);
    const bands = screen.getAllByTestId("timeline-paused");
    expect(bands).toHaveLength(1);
    expect(bands[0]!.style.getPropertyValue("--from")).toBe("2000");
    expect(bands[0]!.style.getPropertyValue("--len")).toBe("1000");
    expect(screen.getByTestId("timeline-totals").getAttribute("aria-label")).toBe("Where the time went: model 50%, paused 25%, other 25%");
  });

  it("says which call waits for you, and opens it to be approved", () => {
    vi.useFakeTimers({ now: T0 + 3000 });
    const { store } = setup(waiting);
    fireEvent.click(screen.getByTestId("timeline-waiting"));
    expect(screen.getByTestId("timeline-waiting").textContent).toBe("write_file waits for you");
    expect(store.getState().runView.node).toBe("w");
    expect(within(screen.getByTestId("node-detail")).getByTestId("node-action-approve")).toBeTruthy();
  });

  it("opens a node's details when its bar is clicked, and moves between bars with the arrow keys", () => {
    vi.useFakeTimers({ now: T0 + 3000 });
    const { store } = setup(waiting);
    fireEvent.click(bar("w"));
    expect(store.getState().runView.node).toBe("w");
    expect(bar("w").getAttribute("aria-pressed")).toBe("true");
    const detail = screen.getByTestId("node-detail");
    expect(within(detail).getByRole("heading", { name: "write_file" })).toBeTruthy();
    fireEvent.click(within(detail).getByRole("button", { name: "Close node details" }));
    expect(store.getState().runView.node).toBeUndefined();

    bar("m1").focus();
    fireEvent.keyDown(bar("m1"), { key: "ArrowDown" });
    expect(document.activeElement).toBe(bar("w"));
    fireEvent.keyDown(bar("w"), { key: "ArrowUp" });
    expect(document.activeElement).toBe(bar("m1"));
  });

  it("says so when the run has no node yet", () => {
    setup([]);
    expect(screen.getByTestId("timeline-pane").textContent).toContain("No nodes yet");
  });
});

describe("the Timeline tab", () => {
  it("shows the timeline beside Transcript, Graph and Both, by a click or by w", () => {
    vi.useFakeTimers({ now: T0 + 3000 });
    const { store } = setup(waiting, "run");
    expect(screen.queryByTestId("timeline-pane")).toBeNull();
    const tab = screen.getByRole("button", { name: "Timeline" });
    expect(tab.getAttribute("title")).toBe("Timeline (w)");
    fireEvent.click(tab);
    expect(store.getState().runView.pane).toBe("timeline");
    expect(tab.getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByTestId("timeline-pane")).toBeTruthy();
    expect(screen.queryByRole("region", { name: "Transcript" })).toBeNull();

    fireEvent.keyDown(window, { key: "t" });
    expect(screen.queryByTestId("timeline-pane")).toBeNull();
    fireEvent.keyDown(window, { key: "w" });
    expect(screen.getByTestId("timeline-pane")).toBeTruthy();
    // Kept as the person's layout, as the others are.
    expect(localStorage.getItem("steward.runPanes")).toBe("timeline");
  });
});

describe("the timeline of a long run", () => {
  it("draws 10,000 events of 2,000 nodes in a window of rows, under a second, and a tick of its clock in milliseconds", () => {
    const big = bigRunEvents({ turns: 527, runId: "run_big" });
    expect(big.length).toBeGreaterThanOrEqual(10_000);
    // The run is still going: its clock runs from just after its last event.
    // performance.now stays real: it measures.
    vi.useFakeTimers({ now: big.at(-1)!.ts + 100, toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    const start = performance.now();
    setup(big, "timeline", "run_big");
    const ms = performance.now() - start;
    const rows = screen.getAllByTestId("timeline-bar");
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(150);
    // It follows the end: the last call is in view.
    expect(bar("t526_2")).toBeTruthy();
    // The median of nine ticks: a collection of garbage, or another
    // process on a shared machine, makes one slow now and then.
    const ticks: number[] = [];
    for (let i = 0; i < 9; i++) {
      const tickStart = performance.now();
      act(() => vi.advanceTimersByTime(tickMs));
      ticks.push(performance.now() - tickStart);
    }
    const tick = [...ticks].sort((a, b) => a - b)[4]!;
    expect(screen.getByTestId("timeline-totals").textContent).toContain("so far");
    console.log(`timeline of ${big.length} events, ${rows.length} rows drawn: reduced and rendered in ${ms.toFixed(0)} ms, a clock tick in ${tick.toFixed(1)} ms (median; slowest ${Math.max(...ticks).toFixed(1)} ms) (jsdom)`);
    expect(ms).toBeLessThan(1000);
    expect(tick).toBeLessThan(100);
  });
});
