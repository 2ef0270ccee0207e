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

describe("RunList pages", () => {
  const many = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => run(`run_${String(from - i).padStart(4, "0")}`, { created_at: from - i }));

  // observers holds the IntersectionObservers the list made; near() tells
  // each that its sentinel came into view.
  let observers: { cb: IntersectionObserverCallback; el?: Element }[] = [];
  class FakeIO {
    cb: IntersectionObserverCallback;
    el?: Element;
    constructor(cb: IntersectionObserverCallback) {
      this.cb = cb;
      observers.push(this);
    }
    observe(el: Element) {
      this.el = el;
    }
    disconnect() {
      observers = observers.filter((o) => o !== this);
    }
  }
  const near = () =>
    observers.forEach((o) => o.cb([{ isIntersecting: true, target: o.el } as IntersectionObserverEntry], o as unknown as IntersectionObserver));

  it("loads the next page when its end comes into view, until the last", async () => {
    vi.stubGlobal("IntersectionObserver", FakeIO);
    const fetched: string[] = [];
    const fetchMock = vi.fn(async (url: string) => {
      fetched.push(url);
      if (url === "/api/v1/runs?before=c100") return Response.json({ runs: many(900, 20), next_before: "c200", more: true });
      if (url === "/api/v1/runs?before=c200") return Response.json({ runs: many(800, 5), next_before: "", more: false });
      return new Response("{}", { status: 404 });
    });
    const store = createAppStore({ listsLoaded: true });
    store.getState().setLists(many(1000, 20), [], { runs: many(1000, 20), next: "c100" });
    render(
      <ServicesProvider value={{ api: createApi({ fetch: fetchMock as unknown as typeof fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
        <RunList />
      </ServicesProvider>,
    );
    expect(shownIds()).toHaveLength(20);
    near();
    await vi.waitFor(() => expect(shownIds()).toHaveLength(40));
    near();
    near(); // asked again while loading: one request
    await vi.waitFor(() => expect(shownIds()).toHaveLength(45));
    expect(fetched).toEqual(["/api/v1/runs?before=c100", "/api/v1/runs?before=c200"]);
    expect(screen.queryByRole("button", { name: "More runs" })).toBeNull(); // the end
    expect(shownIds()[44]).toBe("run_0796");
    vi.unstubAllGlobals();
  });

  it("loads no page on its own while a filter narrows the list", () => {
    vi.stubGlobal("IntersectionObserver", FakeIO);
    const fetchMock = vi.fn(async () => Response.json({ runs: [], next_before: "", more: false }));
    const store = createAppStore({ listsLoaded: true });
    store.getState().setLists([], [], { runs: many(1000, 3), next: "c3" });
    render(
      <ServicesProvider value={{ api: createApi({ fetch: fetchMock as unknown as typeof fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
        <RunList />
      </ServicesProvider>,
    );
    fireEvent.change(screen.getByRole("searchbox", { name: "Search runs" }), { target: { value: "nothing like it" } });
    near();
    expect(fetchMock).not.toHaveBeenCalled();
    expect(screen.getByRole("button", { name: "More runs" })).toBeTruthy();
    vi.unstubAllGlobals();
  });

  it("has a button for the next page", async () => {
    const fetchMock = vi.fn(async () => Response.json({ runs: many(900, 1), next_before: "", more: false }));
    const store = createAppStore({ listsLoaded: true });
    store.getState().setLists([], [], { runs: many(1000, 2), next: "c2" });
    render(
      <ServicesProvider value={{ api: createApi({ fetch: fetchMock as unknown as typeof fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
        <RunList />
      </ServicesProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "More runs" }));
    await vi.waitFor(() => expect(shownIds()).toEqual(["run_1000", "run_0999", "run_0900"]));
  });
});
