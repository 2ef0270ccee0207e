import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Run } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { RunList } from "./RunList";

afterEach(cleanup);

const run = (id: string, over: Partial<Run>): Run =>
  ({
    id, agent_id: "ag_1", agent_name: "default", status: "completed", instructions: "", workspace: "/tmp/ws", mode: "ask",
    provider: "script", model: "", demo: true, unattended: false, pending_approvals: 0, created_at: 1, updated_at: 1,
    ...over,
  }) as Run;

const runs = [
  run("run_a1", { status: "running", instructions: "Refactor the parser", agent_name: "coder" }),
  run("run_b2", { status: "waiting", instructions: "Answer my question" }),
  run("run_c3", { status: "running", instructions: "Write docs", pending_approvals: 2 }),
  run("run_d4", { status: "completed", instructions: "Tidy the README" }),
  run("run_e5", { status: "failed", instructions: "Deploy" }),
  run("run_f6", { status: "cancelled", instructions: "Old task", agent_name: "Reviewer" }),
  run("run_g7", { status: "paused", instructions: "Long job" }),
];

function renderList(list: Run[] = runs) {
  const services: Services = {
    api: createApi({ fetch: vi.fn() as unknown as typeof fetch }),
    store: createAppStore({ runs: list, listsLoaded: true }),
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(
    <ServicesProvider value={services}>
      <RunList />
    </ServicesProvider>,
  );
}

const shownIds = () =>
  within(screen.getByRole("navigation", { name: "Runs" }))
    .queryAllByRole("button", { name: /^Run / })
    .map((b) => b.getAttribute("data-run-id"));

const filterBy = (label: string) => {
  const select = screen.getByRole("combobox", { name: "Filter runs by status" }) as HTMLSelectElement;
  const option = within(select).getByRole("option", { name: label }) as HTMLOptionElement;
  fireEvent.change(select, { target: { value: option.value } });
};

describe("RunList filters", () => {
  it("shows every run by default", () => {
    renderList();
    expect(shownIds()).toEqual(runs.map((r) => r.id));
  });

  it("searches instructions, agent name and id, case-insensitively", () => {
    renderList();
    const search = screen.getByRole("searchbox", { name: "Search runs" });
    fireEvent.change(search, { target: { value: "PARSER" } });
    expect(shownIds()).toEqual(["run_a1"]);
    fireEvent.change(search, { target: { value: "reviewer" } });
    expect(shownIds()).toEqual(["run_f6"]);
    fireEvent.change(search, { target: { value: "RUN_D4" } });
    expect(shownIds()).toEqual(["run_d4"]);
  });

  it("filters by status", () => {
    renderList();
    filterBy("Active");
    expect(shownIds()).toEqual(["run_a1", "run_b2", "run_c3", "run_g7"]);
    filterBy("Waiting on you");
    expect(shownIds()).toEqual(["run_b2", "run_c3"]);
    filterBy("Completed");
    expect(shownIds()).toEqual(["run_d4"]);
    filterBy("Failed/Cancelled");
    expect(shownIds()).toEqual(["run_e5", "run_f6"]);
    filterBy("All");
    expect(shownIds()).toHaveLength(runs.length);
  });

  it("combines search and status, and clears from the empty state", () => {
    renderList();
    filterBy("Completed");
    fireEvent.change(screen.getByRole("searchbox", { name: "Search runs" }), { target: { value: "deploy" } });
    expect(shownIds()).toEqual([]);
    expect(screen.getByText("No run matches")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Clear filters" }));
    expect(shownIds()).toHaveLength(runs.length);
    expect((screen.getByRole("searchbox", { name: "Search runs" }) as HTMLInputElement).value).toBe("");
    expect((screen.getByRole("combobox", { name: "Filter runs by status" }) as HTMLSelectElement).value).toBe("all");
  });

  it("keeps the no-runs message when there are none", () => {
    renderList([]);
    expect(screen.getByText("No runs yet.")).toBeTruthy();
    expect(screen.queryByText("No run matches")).toBeNull();
  });
});
