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

// fakeServer answers GET /runs as the server does, over list: q (any
// case, instructions only), status, attention, before, limit, in pages.
// delay(url) holds an answer back, to answer questions out of order.
function fakeServer(list: Run[], delay: (url: URL) => number = () => 0) {
  const asked: string[] = [];
  const fetch = vi.fn(async (input: string) => {
    const url = new URL(input, "http://x");
    asked.push(url.pathname + url.search);
    await new Promise((r) => setTimeout(r, delay(url)));
    if (url.searchParams.get("q") === "boom") return Response.json({ error: { code: "internal", message: "the database is locked" } }, { status: 500 });
    const q = (url.searchParams.get("q") ?? "").toLowerCase();
    const statuses = url.searchParams.get("status")?.split(",");
    const attention = url.searchParams.get("attention") === "true";
    const before = url.searchParams.get("before");
    const limit = Number(url.searchParams.get("limit") ?? 100);
    const all = list.filter(
      (r) =>
        r.instructions.toLowerCase().includes(q) &&
        (!statuses || statuses.includes(r.status)) &&
        (!attention || r.status === "waiting" || r.pending_approvals > 0),
    );
    const from = before ? all.findIndex((r) => r.id === before) + 1 : 0;
    const page = all.slice(from, from + limit);
    const more = from + limit < all.length;
    return Response.json({ runs: page, more, next_before: more ? page[page.length - 1]!.id : "" });
  });
  return { fetch, asked };
}

function renderList(list: Run[] = runs, server = fakeServer(list), held: Run[] = list) {
  const services: Services = {
    api: createApi({ fetch: server.fetch as unknown as typeof fetch }),
    store: createAppStore({ runs: held, listsLoaded: true }),
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(
    <ServicesProvider value={services}>
      <RunList />
    </ServicesProvider>,
  );
  return { ...server, store: services.store };
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

const type = (value: string) => fireEvent.change(screen.getByRole("searchbox", { name: "Search runs" }), { target: { value } });
// settled waits for the list to show want, its question answered.
const settled = (want: (string | null)[]) =>
  vi.waitFor(() => {
    expect(shownIds()).toEqual(want);
    expect(screen.queryByRole("status")).toBeNull();
  });

describe("RunList search and filters", () => {
  it("shows every run by default, asking nothing", () => {
    const { asked } = renderList();
    expect(shownIds()).toEqual(runs.map((r) => r.id));
    expect(asked).toEqual([]);
  });

  it("asks the server once typing stops, and shows a run only the server holds", async () => {
    // The store holds the first run only; the server has them all.
    const { asked } = renderList(runs, undefined, runs.slice(0, 1));
    type("t");
    type("ti");
    type("TIDY");
    await settled(["run_d4"]);
    expect(asked).toEqual(["/api/v1/runs?q=TIDY"]);
  });

  it("never shows an older question's answer that arrives after the newer one's", async () => {
    const server = fakeServer(runs, (url) => (url.searchParams.get("q") === "e" ? 600 : 0));
    const { asked } = renderList(runs, server);
    type("e"); // in most runs, answered late
    await vi.waitFor(() => expect(asked).toEqual(["/api/v1/runs?q=e"]));
    type("deploy");
    await settled(["run_e5"]);
    await new Promise((r) => setTimeout(r, 700)); // the late answer has come
    expect(asked).toEqual(["/api/v1/runs?q=e", "/api/v1/runs?q=deploy"]);
    expect(shownIds()).toEqual(["run_e5"]);
  });

  it("sends the status filter as the server's, Waiting on you as attention", async () => {
    const { asked } = renderList();
    filterBy("Active");
    await settled(["run_a1", "run_b2", "run_c3", "run_g7"]);
    filterBy("Waiting on you");
    await settled(["run_b2", "run_c3"]);
    filterBy("Completed");
    await settled(["run_d4"]);
    filterBy("Failed/Cancelled");
    await settled(["run_e5", "run_f6"]);
    expect(asked).toEqual([
      "/api/v1/runs?status=queued%2Crunning%2Cpausing%2Cwaiting%2Cpaused",
      "/api/v1/runs?attention=true",
      "/api/v1/runs?status=completed",
      "/api/v1/runs?status=failed%2Ccancelled",
    ]);
    filterBy("All");
    expect(shownIds()).toHaveLength(runs.length); // at once, from the store
  });

  it("shows the store's runs at once when the box is cleared", async () => {
    renderList();
    type("parser");
    await settled(["run_a1"]);
    type("");
    expect(shownIds()).toEqual(runs.map((r) => r.id));
  });

  it("says when no run matches, and clears from there", async () => {
    renderList();
    filterBy("Completed");
    type("deploy");
    await vi.waitFor(() => expect(screen.getByText("No runs match “deploy”")).toBeTruthy());
    expect(shownIds()).toEqual([]);
    fireEvent.click(screen.getByRole("button", { name: "Clear filters" }));
    expect(shownIds()).toHaveLength(runs.length);
    expect((screen.getByRole("searchbox", { name: "Search runs" }) as HTMLInputElement).value).toBe("");
    expect((screen.getByRole("combobox", { name: "Filter runs by status" }) as HTMLSelectElement).value).toBe("all");
  });

  it("shows the server's error, and asks again on Try again", async () => {
    const { asked } = renderList();
    type("boom");
    await vi.waitFor(() => expect(screen.getByRole("alert").textContent).toContain("the database is locked"));
    expect(screen.queryByText(/No runs match/)).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await vi.waitFor(() => expect(asked).toHaveLength(2));
  });

  it("asks again when the store's pages refresh, so a filter stays live", async () => {
    const list = runs.map((r) => ({ ...r }));
    const { asked, store } = renderList(list);
    filterBy("Completed");
    await settled(["run_d4"]);
    list[0]!.status = "completed"; // run_a1 completes
    store.getState().setLists([...list], [], { runs: [...list] });
    await settled(["run_a1", "run_d4"]);
    expect(asked).toEqual(["/api/v1/runs?status=completed", "/api/v1/runs?status=completed"]);
  });

  it("keeps the no-runs message when there are none", () => {
    renderList([]);
    expect(screen.getByText("No runs yet.")).toBeTruthy();
    expect(screen.queryByText(/No runs match/)).toBeNull();
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

  it("pages a search on as its end comes into view, with the same question", async () => {
    vi.stubGlobal("IntersectionObserver", FakeIO);
    const list = many(1000, 250).map((r, i) => ({ ...r, instructions: i % 2 ? "odd" : "even" }));
    const server = fakeServer(list);
    const store = createAppStore({ listsLoaded: true });
    store.getState().setLists(list.slice(0, 100), [], { runs: list.slice(0, 100), next: "run_0901" });
    render(
      <ServicesProvider value={{ api: createApi({ fetch: server.fetch as unknown as typeof fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
        <RunList />
      </ServicesProvider>,
    );
    type("ODD");
    await vi.waitFor(() => expect(server.asked).toEqual(["/api/v1/runs?q=ODD"]));
    await vi.waitFor(() => {
      expect(shownIds()[0]).toBe("run_0999");
      expect(observers).toHaveLength(1);
    });
    near();
    await vi.waitFor(() => expect(shownIds()).toHaveLength(125));
    expect(server.asked).toEqual(["/api/v1/runs?q=ODD", "/api/v1/runs?q=ODD&before=run_0801"]);
    expect(screen.queryByRole("button", { name: "More runs" })).toBeNull(); // the end
    type("");
    expect(shownIds()).toHaveLength(100); // the store's pages, untouched
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
