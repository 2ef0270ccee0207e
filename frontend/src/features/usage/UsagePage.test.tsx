import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Budget, UsageReport } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { budgetLines } from "./RunBudgets";
import { periodError, UsagePage } from "./UsagePage";

afterEach(cleanup);

const u = (i: number, o: number, c: number) => ({ input_tokens: i, output_tokens: o, cached_tokens: 0, cost_usd: c });
const reports: Record<string, UsageReport> = {
  day: {
    group: "day",
    rows: [
      { key: "2026-03-01", label: "2026-03-01", runs: 1, first: 1, steps: 2, usage: u(100, 10, 0.5) },
      { key: "2026-03-02", label: "2026-03-02", runs: 2, first: 2, steps: 3, usage: u(300, 30, 1.5) },
    ],
    total: u(400, 40, 2),
    runs: 3,
  },
  run: {
    group: "run",
    rows: [{ key: "run_abcdefghijkl", label: "coder", runs: 1, first: 5, steps: 1, usage: u(5, 1, 0) }],
    total: u(5, 1, 0),
    runs: 1,
  },
};

function renderPage() {
  const calls: string[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL) => {
    const url = new URL(String(input), "http://x");
    calls.push(url.pathname + url.search);
    if (url.searchParams.get("to") === "1999-01-01") {
      return Response.json({ error: { code: "invalid", message: "to is before from" } }, { status: 400 });
    }
    return Response.json(reports[url.searchParams.get("group") ?? "run"]);
  });
  const store = createAppStore({ page: "usage" });
  render(
    <ServicesProvider value={{ api: createApi({ fetch: fetchMock as unknown as typeof fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
      <UsagePage />
    </ServicesProvider>,
  );
  return { calls, store };
}

describe("UsagePage", () => {
  it("shows the rows by day with a bar each and the total", async () => {
    const { calls } = renderPage();
    const rows = await screen.findAllByTestId("usage-row");
    expect(calls).toEqual(["/api/v1/usage?group=day"]);
    expect(rows.map((r) => r.dataset["key"])).toEqual(["2026-03-01", "2026-03-02"]);
    expect(rows[1]!.textContent).toContain("$1.50");
    expect(rows[1]!.textContent).toContain("75%");
    expect(screen.getByTestId("usage-total").textContent).toContain("$2.00");
    const bars = within(screen.getByTestId("usage-chart")).getAllByTestId("usage-bar");
    expect(bars).toHaveLength(2);
    // The tallest bar is the most expensive day, to the chart's full height.
    const h = bars.map((b) => Number(b.querySelector("rect")!.getAttribute("height")));
    expect(h[1]).toBeCloseTo(142);
    expect(h[0]).toBeCloseTo(142 / 3);
    fireEvent.click(screen.getByRole("button", { name: "Tokens" }));
    expect(within(screen.getByTestId("usage-chart")).getAllByText("330")).toHaveLength(1);
  });

  it("groups by run, whose rows open the run", async () => {
    const { calls, store } = renderPage();
    await screen.findAllByTestId("usage-row");
    fireEvent.click(screen.getByRole("button", { name: "Run" }));
    const open = await screen.findByRole("button", { name: /coder · run_abcdef/ });
    expect(calls).toContain("/api/v1/usage?group=run");
    fireEvent.click(open);
    expect(store.getState().selectedRunId).toBe("run_abcdefghijkl");
    expect(store.getState().page).toBe("run");
  });

  it("sends the period and says what the server refused", async () => {
    const { calls } = renderPage();
    await screen.findAllByTestId("usage-row");
    fireEvent.change(screen.getByLabelText("From (UTC day)"), { target: { value: "2026-03-01" } });
    await waitFor(() => expect(calls).toContain("/api/v1/usage?group=day&from=2026-03-01"));
    fireEvent.change(screen.getByLabelText("From (UTC day)"), { target: { value: "" } });
    fireEvent.change(screen.getByLabelText("To (UTC day)"), { target: { value: "1999-01-01" } });
    expect((await screen.findByTestId("usage-error")).textContent).toBe("Could not read the usage: to is before from");
  });

  it("checks the period before asking", () => {
    expect(periodError("2026-03-02", "2026-03-01")).toBe("To is before From");
    expect(periodError("March", "")).toBe('From "March" is not a day (YYYY-MM-DD)');
    expect(periodError("2026-03-01", "2026-03-01")).toBeUndefined();
  });
});

describe("budgetLines", () => {
  it("shows only the budgets that are set, as used / limit", () => {
    const b: Budget = { limits: { max_steps: 10, max_cost_usd: 1, max_wall_time_ms: 600_000 }, steps: 10, tokens: 5000, cost_usd: 0.25, wall_time_ms: 90_000 };
    expect(budgetLines(b)).toEqual([
      { name: "steps", used: "10", limit: "10", share: 1 },
      { name: "cost", used: "$0.25", limit: "$1.00", share: 0.25 },
      { name: "wall time", used: "1 min 30 s", limit: "10 min", share: 0.15 },
    ]);
  });
});
