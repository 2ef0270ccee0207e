import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import { ServicesProvider } from "../../store/context";
import { emptyTranscript, type DecisionRecord } from "../../store/reducer";
import { createAppStore } from "../../store/store";
import { DecisionsPanel } from "./DecisionsPanel";

afterEach(cleanup);

function setup(decisions: DecisionRecord[]) {
  const store = createAppStore({ stream: { runs: { run_1: { ...emptyTranscript("run_1"), decisions } } } });
  const services = { api: createApi({ fetch: vi.fn() as unknown as typeof fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() };
  render(
    <ServicesProvider value={services}>
      <DecisionsPanel runId="run_1" />
    </ServicesProvider>,
  );
}

const policy = (i: number): DecisionRecord => ({
  kind: "policy",
  seq: i + 1,
  ts: 1_700_000_000_000 + i,
  nodeId: `n${i}`,
  tool: i % 2 ? "read_file" : "write_file",
  effect: i % 3 ? "allow" : "ask",
  reason: `rule ${i}`,
});

describe("DecisionsPanel", () => {
  it("draws only a window of rows of a run with 5,000 decisions, the newest in view", () => {
    setup(Array.from({ length: 5000 }, (_, i) => policy(i)));
    const table = screen.getByRole("table", { name: "Decisions on tool calls" });
    expect(table.getAttribute("aria-rowcount")).toBe("5001");
    expect(screen.getByText("5000")).toBeTruthy();
    const rows = within(table).getAllByTestId("decision-row");
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.length).toBeLessThan(300);
    // It follows the end: the last rows are the ones drawn.
    const last = rows.at(-1)!;
    expect(last.dataset["nodeId"]).toBe("n4999");
    expect(last.getAttribute("aria-rowindex")).toBe("5001");
    expect(within(last).getByText("rule 4999")).toBeTruthy();
    expect(within(table).queryByText("rule 0")).toBeNull();
  });

  it("shows every row of a short run, policy and person alike, with column headers", () => {
    setup([
      policy(0),
      { kind: "answer", seq: 2, ts: 1, nodeId: "n0", tool: "write_file", interaction: "approval", decision: "approve", source: "ui", scope: "run", grantId: "gr_1", feedback: "ok", edited: true },
    ]);
    expect(screen.getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Time", "Tool", "By", "Decision", "Details"]);
    const rows = screen.getAllByTestId("decision-row");
    expect(rows.map((r) => r.dataset["decision"])).toEqual(["ask", "approve"]);
    expect(within(rows[1]!).getByText("person (ui)")).toBeTruthy();
    expect(rows[1]!.textContent).toContain("always in this run");
    expect(within(rows[1]!).getByTestId("edited-marker")).toBeTruthy();
  });

  it("says when there is nothing yet", () => {
    setup([]);
    expect(screen.getByText("No tool call decisions yet.")).toBeTruthy();
  });
});
