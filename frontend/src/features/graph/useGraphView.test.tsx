import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, Run } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { GraphPanel } from "./GraphPanel";
import { nodeHeight, nodeWidth } from "./layout";
import { maxZoom, readableZoom } from "./useGraphView";

// The graph's own moves of its view, in jsdom: the canvas has the size the
// test gives it, and the test delivers its ResizeObserver's notices.

const run = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "completed", instructions: "Write",
  workspace: "/ws", mode: "ask", provider: "script", model: "", demo: true, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["fork"],
} satisfies Run;

const events: Omit<Event, "run_id" | "seq" | "ts">[] = [
  { type: "node.started", node_id: "root", data: { kind: "agent", label: "demo" } },
  { type: "node.started", node_id: "u", data: { kind: "user", label: "instructions", parent: "root", text: "Write" } },
  { type: "node.started", node_id: "m1", data: { kind: "llm", label: "model call 1", parent: "root", after: ["u"] } },
  { type: "node.finished", node_id: "m1", data: { status: "succeeded", duration_ms: 3 } },
];

let size = { width: 500, height: 400 };
const observers: { cb: ResizeObserverCallback; els: Element[] }[] = [];
class RecordingObserver {
  private entry: { cb: ResizeObserverCallback; els: Element[] };
  constructor(cb: ResizeObserverCallback) {
    this.entry = { cb, els: [] };
    observers.push(this.entry);
  }
  observe(el: Element) {
    this.entry.els.push(el);
  }
  unobserve() {}
  disconnect() {
    this.entry.els = [];
  }
}

// resizeCanvas gives the canvas a new size and delivers the notice, as the
// browser does at its next frame.
function resizeCanvas(width: number, height: number) {
  size = { width, height };
  for (const o of observers) {
    const canvas = o.els.find((el) => el.classList.contains("graph-canvas"));
    if (canvas) o.cb([{ target: canvas } as unknown as ResizeObserverEntry], o as unknown as ResizeObserver);
  }
}

// mouse sends a mouse event as a browser does, with its view (d3-zoom reads
// it; jsdom refuses the window that tests see in the event's init).
function mouse(target: EventTarget, type: string, clientX: number, clientY: number) {
  const ev = new MouseEvent(type, { bubbles: true, cancelable: true, clientX, clientY, button: 0 });
  Object.defineProperty(ev, "view", { value: window });
  act(() => void target.dispatchEvent(ev));
}

const viewport = () => (document.querySelector(".react-flow__viewport") as HTMLElement).style.transform;
// fitted says the view left where the flow starts it (0, 0, zoom 1).
const fitted = () => expect(viewport().replace(/\s/g, "")).not.toBe("translate(0px,0px)scale(1)");

beforeEach(() => {
  size = { width: 500, height: 400 };
  observers.length = 0;
  vi.stubGlobal("ResizeObserver", RecordingObserver);
  const box = (prop: "width" | "height") =>
    function (this: HTMLElement) {
      return this.classList.contains("graph-canvas") ? size[prop] : 0;
    };
  vi.spyOn(HTMLElement.prototype, "clientWidth", "get").mockImplementation(box("width"));
  vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockImplementation(box("height"));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

function setup(evs = events) {
  const store = createAppStore({ runs: [{ ...run, last_seq: evs.length }], selectedRunId: run.id });
  store.getState().applyEvents(evs.map((e, i) => ({ run_id: run.id, seq: i + 1, ts: i, ...e })));
  const services = { api: createApi({ fetch: vi.fn() as unknown as typeof fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() };
  render(
    <ServicesProvider value={services}>
      <GraphPanel runId={run.id} />
    </ServicesProvider>,
  );
  return store;
}

// view reads the flow's pan and zoom off its viewport's transform.
function view(): { x: number; y: number; zoom: number } {
  const m = /translate\(\s*([-\d.e]+)px,\s*([-\d.e]+)px\)\s*scale\(([-\d.e]+)\)/.exec(viewport())!;
  return { x: Number(m[1]), y: Number(m[2]), zoom: Number(m[3]) };
}

// turns are n model calls of a run that goes on, each after the one before.
function turns(from: number, n: number): Omit<Event, "run_id" | "seq" | "ts">[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return { type: "node.started" as const, node_id: `m${i}`, data: { kind: "llm", label: `model call ${i}`, parent: "root", after: [i === 1 ? "u" : `m${i - 1}`] } };
  });
}

// inCanvas says whether node id is wholly in the canvas, as the flow shows it.
function inCanvas(id: string): boolean {
  const el = document.querySelector(`.react-flow__node[data-id="${id}"]`) as HTMLElement;
  const m = /translate\(\s*([-\d.e]+)px,\s*([-\d.e]+)px\)/.exec(el.style.transform)!;
  const v = view();
  const left = Number(m[1]) * v.zoom + v.x;
  const top = Number(m[2]) * v.zoom + v.y;
  return left >= 0 && top >= 0 && left + nodeWidth * v.zoom <= size.width && top + nodeHeight * v.zoom <= size.height;
}

// Each test renders the flow and lays out a growing run in jsdom: on a loaded
// machine (the whole suite at once on two CPUs) that takes seconds.
describe("the graph's view", { timeout: 30_000 }, () => {
  it("keeps the person's zoom while following: the zoom buttons stick as the run grows, the newest node in view", async () => {
    // Without flights: d3's transitions in jsdom are at the mercy of its
    // timers (a flight that never lands failed this test at random); the
    // flights are Chromium's to test (TestE2EGraphReadable).
    vi.stubGlobal("matchMedia", (q: string) => ({ matches: q.includes("reduce"), media: q, addEventListener() {}, removeEventListener() {} }));
    const store = setup([...events.slice(0, 3), ...turns(2, 3)]);
    const follow = screen.getByTestId("graph-follow");
    await waitFor(fitted);
    const start = view().zoom;
    const zoomIn = screen.getByRole("button", { name: "Zoom In" });
    for (let i = 0; i < 3; i++) fireEvent.click(zoomIn);
    expect(view().zoom).toBeCloseTo(Math.min(maxZoom, start * 1.2 ** 3));
    const zoom = view().zoom;
    // Ten more model calls, one at a time, as a live run sends them.
    for (let i = 0; i < 10; i++) {
      act(() => store.getState().applyEvents([{ run_id: run.id, seq: 100 + i, ts: 100 + i, ...turns(5 + i, 1)[0]! }]));
    }
    await waitFor(() => expect(inCanvas("m14")).toBe(true));
    expect(view().zoom).toBeCloseTo(zoom);
    expect(follow.getAttribute("aria-pressed")).toBe("true");
    // The Fit button gives the view back to the graph.
    fireEvent.click(screen.getByRole("button", { name: "Fit view" }));
    expect(view().zoom).not.toBeCloseTo(zoom);
    expect(follow.getAttribute("aria-pressed")).toBe("true");
  });

  it("fits a graph too tall to read whole at a readable zoom, around the newest node", async () => {
    setup([...events.slice(0, 3), ...turns(2, 40)]);
    await waitFor(fitted);
    expect(view().zoom).toBe(readableZoom);
    expect(inCanvas("m41")).toBe(true);
    expect(inCanvas("m1")).toBe(false);
    // Zoomed out by the person, fitted again: readable again.
    fireEvent.click(screen.getByRole("button", { name: "Zoom Out" }));
    expect(view().zoom).toBeLessThan(readableZoom);
    fireEvent.click(screen.getByRole("button", { name: "Fit view" }));
    expect(view().zoom).toBe(readableZoom);
  });


  it("is fitted again in the same task as the canvas is resized, not frames later", async () => {
    setup();
    await waitFor(fitted);
    const before = viewport();
    // No act, no frame: the view has moved when the notice returns.
    resizeCanvas(1000, 400);
    expect(viewport()).not.toBe(before);
    const x = (t: string) => Number(/translate\(\s*([-\d.]+)px/.exec(t)![1]);
    expect(x(viewport()) - x(before)).toBeCloseTo(250);
  });

  it("does not move under a pressed pointer: the fit waits for the click", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const store = setup();
    await vi.waitFor(fitted);
    const before = viewport();
    const node = screen.getAllByTestId("graph-node").find((n) => n.dataset["nodeId"] === "m1")!;
    fireEvent.pointerDown(node);
    mouse(node, "mousedown", 100, 100);
    resizeCanvas(1000, 400);
    expect(viewport()).toBe(before);
    fireEvent.pointerUp(node);
    mouse(node, "mouseup", 100, 100);
    mouse(node, "click", 100, 100);
    expect(viewport()).toBe(before);
    expect(store.getState().runView.node).toBe("m1");
    act(() => vi.runAllTimers());
    expect(viewport()).not.toBe(before);
  });

  it("keeps following the run when a node is clicked; a pan of the person's stops it", async () => {
    setup();
    const follow = screen.getByTestId("graph-follow");
    await waitFor(fitted);
    const node = screen.getAllByTestId("graph-node").find((n) => n.dataset["nodeId"] === "m1")!;
    mouse(node, "mousedown", 100, 100);
    mouse(node, "mouseup", 100, 100);
    mouse(node, "click", 100, 100);
    expect(follow.getAttribute("aria-pressed")).toBe("true");
    const pane = document.querySelector(".react-flow__pane")!;
    mouse(pane, "mousedown", 100, 100);
    mouse(pane, "mousemove", 160, 130);
    mouse(pane, "mouseup", 160, 130);
    await waitFor(() => expect(follow.getAttribute("aria-pressed")).toBe("false"));
  });
});
