import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, Run } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { RunBudgets } from "./RunBudgets";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const run = (status: string): Run => ({
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status, instructions: "Tidy up",
  workspace: "/ws", mode: "edits", provider: "script", model: "", demo: false, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: [],
}) as Run;

const budget = { steps: 3, tokens: 10, cost_usd: 0, wall_time_ms: 0, limits: { max_steps: 50 } };

// A run's history read in: its status, then a node an update.
const history = (n: number): Event[] => [
  { run_id: "run_1", seq: 1, ts: 1, type: "run.status", data: { status: "running" } },
  ...Array.from({ length: n }, (_, i): Event => ({ run_id: "run_1", seq: i + 2, ts: i + 2, type: "node.started", node_id: `n${i}`, data: { kind: "llm", label: `m${i}` } })),
];

function setup(status: string, answer: () => Promise<Response> = async () => Response.json(budget)) {
  const fetch = vi.fn(async (_input: RequestInfo | URL) => answer());
  const store = createAppStore({ runs: [run(status)], selectedRunId: "run_1" });
  render(
    <ServicesProvider value={{ api: createApi({ fetch: fetch as unknown as typeof globalThis.fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
      <dl>
        <RunBudgets runId="run_1" />
      </dl>
    </ServicesProvider>,
  );
  return { store, budgetReads: () => fetch.mock.calls.filter(([u]) => String(u).includes("/budget")).length };
}

// readIn applies a run's history five events at a time, 2.5 s apart (more
// than the budget's read interval), as a long run's pages come in.
async function readIn(store: ReturnType<typeof setup>["store"]) {
  const evs = history(30);
  for (let i = 0; i < evs.length; i += 5) {
    act(() => store.getState().applyEvents(evs.slice(i, i + 5)));
    await act(async () => vi.advanceTimersByTimeAsync(2500));
  }
}

describe("RunBudgets", () => {
  it("reads an ended run's budget once, however much of its history comes in", async () => {
    vi.useFakeTimers();
    const { store, budgetReads } = setup("completed");
    await readIn(store);
    expect(budgetReads()).toBe(1);
    expect(screen.getByTestId("run-budgets").textContent).toContain("3 / 50");
  });

  it("reads a running run's budget again as it moves, at most every 2 s", async () => {
    vi.useFakeTimers();
    const { store, budgetReads } = setup("running");
    await readIn(store);
    expect(budgetReads()).toBeGreaterThan(3);
  });

  // The answer used to come in as a new line of the header, which moved
  // the pane switch below it under the person's pointer.
  it("holds the budgets' line while they are read, and the same line shows them", async () => {
    let answer!: (r: Response) => void;
    setup("completed", () => new Promise<Response>((resolve) => (answer = resolve)));
    const line = await screen.findByTestId("run-budgets-line");
    expect(line.textContent).toContain("Budgets");
    expect(screen.queryByTestId("run-budgets")).toBeNull();
    await act(async () => answer(Response.json(budget)));
    expect(await screen.findByTestId("run-budgets")).toBeTruthy();
    expect(screen.getByTestId("run-budgets-line")).toBe(line);
    expect(line.textContent).toContain("steps 3 / 50");
    expect(screen.queryByTestId("run-budgets-reading")).toBeNull();
  });

  it("leaves no line for a run whose budgets cannot be read", async () => {
    setup("completed", async () => Response.json({ error: { code: "not_found", message: "no such run" } }, { status: 404 }));
    expect(await screen.findByTestId("run-budgets-line")).toBeTruthy();
    await act(async () => vi.waitFor(() => expect(screen.queryByTestId("run-budgets-line")).toBeNull()));
  });
});
