import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Agent, Grant } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { GrantsView } from "./GrantsView";

afterEach(cleanup);

const grants: Grant[] = [
  { id: "gr_2", effect: "allow", tool: "run_command", match: "", scope: "agent", agent_id: "ag_1", created_at: 2000 },
  { id: "gr_1", effect: "allow", tool: "write_file", match: "notes/a.txt", scope: "run", run_id: "run_1", created_at: 1000 },
];

// server plays GET /grants and DELETE /grants/{id} over a list it keeps.
function server(list: Grant[]) {
  let held = [...list];
  const calls: string[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    calls.push(`${init?.method ?? "GET"} ${url}`);
    if (init?.method === "DELETE") {
      held = held.filter((g) => `/api/v1/grants/${g.id}` !== url);
      return new Response(null, { status: 204 });
    }
    return Response.json({ grants: held });
  });
  return { fetchMock, calls };
}

function renderView(fetchMock: typeof fetch) {
  const store = createAppStore({ agents: [{ id: "ag_1", name: "builder" } as Agent], page: "grants" });
  render(
    <ServicesProvider value={{ api: createApi({ fetch: fetchMock }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
      <GrantsView />
    </ServicesProvider>,
  );
  return store;
}

describe("GrantsView", () => {
  it("lists the grants with effect, tool, match and scope", async () => {
    const { fetchMock } = server(grants);
    renderView(fetchMock as unknown as typeof fetch);
    const rows = await screen.findAllByTestId("grant-row");
    expect(rows.map((r) => r.dataset["grantId"])).toEqual(["gr_2", "gr_1"]);
    expect(rows[0]!.textContent).toContain("any argument");
    expect(rows[0]!.textContent).toContain("agent builder");
    expect(rows[1]!.textContent).toContain("notes/a.txt");
    expect(within(rows[1]!).getByRole("button", { name: "Open run run_1" })).toBeTruthy();
  });

  it("revokes a grant and reads the list again", async () => {
    const { fetchMock, calls } = server(grants);
    renderView(fetchMock as unknown as typeof fetch);
    const [first] = await screen.findAllByTestId("revoke-grant");
    fireEvent.click(first!);
    await waitFor(() => expect(screen.getAllByTestId("grant-row").map((r) => r.dataset["grantId"])).toEqual(["gr_1"]));
    expect(calls).toEqual(["GET /api/v1/grants", "DELETE /api/v1/grants/gr_2", "GET /api/v1/grants"]);
  });

  it("says when there are none", async () => {
    const { fetchMock } = server([]);
    renderView(fetchMock as unknown as typeof fetch);
    expect((await screen.findByTestId("grants-empty")).textContent).toBe("No saved grants.");
  });

  it("opens a grant's run", async () => {
    const { fetchMock } = server(grants);
    const store = renderView(fetchMock as unknown as typeof fetch);
    fireEvent.click(await screen.findByRole("button", { name: "Open run run_1" }));
    expect(store.getState()).toMatchObject({ selectedRunId: "run_1", page: "run" });
  });
});
