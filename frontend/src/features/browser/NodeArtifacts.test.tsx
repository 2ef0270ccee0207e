import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, NodeDetail } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { NodeDetailPanel } from "../graph/NodeDetail";
import { ToolCard } from "../transcript/ToolCard";

afterEach(cleanup);

const runId = "run_b";
const snapshot = 'Clicked e3.\nPage: "Results"\nURL: https://a.test/results\n- heading "Results" [level=1]\n  - link "First" [ref=e4]';
const shot = { name: "shots/n_act.png", kind: "screenshot", mime: "image/png", size: 4096 };

const ev = (seq: number, e: Omit<Event, "run_id" | "seq" | "ts">): Event => ({ run_id: runId, seq, ts: 1000 + seq, ...e });
const started = ev(1, {
  type: "node.started", node_id: "n_act",
  data: { kind: "tool", label: "browser_act", tool: "browser_act", arguments: { action: "click", ref: "e3" }, risk: "write" },
});
const artifact = ev(2, { type: "artifact.created", node_id: "n_act", data: shot });
const finished = ev(3, { type: "node.finished", node_id: "n_act", data: { status: "succeeded", duration_ms: 200, output: snapshot } });
const other = [
  ev(4, { type: "node.started", node_id: "n_ls", data: { kind: "tool", label: "list_dir", tool: "list_dir", arguments: { path: "." }, risk: "read" } }),
  ev(5, { type: "node.finished", node_id: "n_ls", data: { status: "succeeded", duration_ms: 2, output: "a.txt" } }),
];

function detailOf(nodeId: string, events: Event[]): NodeDetail {
  return {
    node: { id: nodeId, kind: "tool", status: "succeeded", label: nodeId, after: [], started_at: 1001, finished_at: 1003, duration_ms: 200 },
    events,
  };
}

function setup(live: Event[], detail: NodeDetail, ui: (id: string) => ReactNode) {
  const fetchFake = vi.fn(async () => Response.json(detail));
  const store = createAppStore({ selectedRunId: runId });
  store.getState().applyEvents(live);
  render(
    <ServicesProvider value={{ api: createApi({ fetch: fetchFake as unknown as typeof fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
      {ui(detail.node.id)}
    </ServicesProvider>,
  );
  return { fetchFake };
}

describe("NodeArtifacts in the node details", () => {
  it("shows a browser call's page and screenshot, which opens full size in a new tab, and its snapshot", async () => {
    const { fetchFake } = setup([started, artifact, finished], detailOf("n_act", [started, artifact, finished]), (id) => (
      <NodeDetailPanel runId={runId} nodeId={id} onClose={() => {}} />
    ));
    await waitFor(() => expect(fetchFake).toHaveBeenCalled());
    const block = screen.getByTestId("node-artifacts");
    expect(within(block).getByTestId("browser-page").textContent).toBe("Resultshttps://a.test/results");
    const link = within(block).getByRole("link", { name: "Open screenshot shots/n_act.png full size in a new tab" });
    expect(link.getAttribute("href")).toBe("/api/v1/runs/run_b/artifacts/shots/n_act.png");
    expect(link.getAttribute("target")).toBe("_blank");
    expect(link.getAttribute("rel")).toContain("noopener");
    expect(within(link).getByRole("img", { name: "Screenshot shots/n_act.png" })).toBeTruthy();
    // The snapshot is the call's output, in the details' scrollable monospace block.
    const panel = screen.getByRole("complementary", { name: "Node details" });
    const output = within(panel).getByRole("heading", { name: "Output" }).nextElementSibling!;
    expect(output.tagName).toBe("PRE");
    expect(output.textContent).toBe(snapshot);
  });

  it("shows a screenshot announced after the node's record was fetched", async () => {
    const { fetchFake } = setup([started, finished, { ...artifact, seq: 4 }], detailOf("n_act", [started, finished]), (id) => (
      <NodeDetailPanel runId={runId} nodeId={id} onClose={() => {}} />
    ));
    await waitFor(() => expect(fetchFake).toHaveBeenCalled());
    expect(within(screen.getByTestId("node-artifacts")).getByRole("link", { name: /shots\/n_act.png/ })).toBeTruthy();
  });

  it("adds nothing to a node that is not a browser call and produced nothing", async () => {
    const { fetchFake } = setup(other, detailOf("n_ls", other), (id) => <NodeDetailPanel runId={runId} nodeId={id} onClose={() => {}} />);
    await waitFor(() => expect(fetchFake).toHaveBeenCalled());
    expect(screen.getByRole("complementary", { name: "Node details" })).toBeTruthy();
    expect(screen.queryByTestId("node-artifacts")).toBeNull();
  });
});

describe("ToolScreenshot in a transcript card", () => {
  it("shows a thumbnail of the call's screenshot, and none on a call without one", () => {
    setup([started, artifact, finished, ...other], detailOf("n_act", []), () => (
      <>
        <ToolCard runId={runId} nodeId="n_act" />
        <ToolCard runId={runId} nodeId="n_ls" />
      </>
    ));
    const [act, ls] = screen.getAllByTestId("tool-card");
    const thumb = within(act!).getByTestId("screenshot");
    expect(thumb.className).toBe("shot shot-thumb");
    expect(within(thumb).getByRole("link", { name: "Open screenshot shots/n_act.png full size in a new tab" }).getAttribute("target")).toBe("_blank");
    expect(within(ls!).queryByTestId("screenshot")).toBeNull();
  });
});
