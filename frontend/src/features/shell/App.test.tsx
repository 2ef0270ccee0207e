import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApi } from "../../api/client";
import type { Agent, Info, Run } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { startSync, type Sync } from "../../store/sync";
import { FakeSocket } from "../../test/fakeSocket";
import { App } from "./App";

const info: Info = { version: "0.1.0", default_workspace: "/home/me/ws", provider: "script", demo: true, note: "No model configured.", sandbox: { available: true } };
const agent = { id: "ag_1", name: "demo", demo: true, effective_provider: "script", effective_model: "" } as Agent;
const run = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "running", instructions: "Write hello.txt",
  workspace: "/home/me/ws", demo: true, created_at: Date.now(), updated_at: Date.now(), last_seq: 0,
  steps: 0, pending_approvals: 0, usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0 }, capabilities: ["cancel"],
} as unknown as Run;

type Route = (init?: RequestInit) => [number, unknown];

let sync: Sync | undefined;
beforeEach(() => {
  FakeSocket.all = [];
});
afterEach(() => {
  sync?.stop();
  cleanup();
});

function start(routes: Record<string, Route>) {
  const calls: { url: string; init?: RequestInit }[] = [];
  const fetchFake = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    calls.push({ url, init });
    const route = routes[`${init?.method ?? "GET"} ${url}`];
    const [status, body] = route ? route(init) : [404, { error: { code: "not_found", message: `no route ${url}` } }];
    return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  };
  const store = createAppStore();
  const api = createApi({ fetch: fetchFake as typeof fetch, onUnauthorized: () => store.getState().setUnauthorized() });
  sync = startSync(api, store, { url: "ws://test/api/v1/ws", WebSocket: FakeSocket as unknown as typeof WebSocket });
  render(
    <ServicesProvider value={{ api, store, refreshLists: sync.refreshLists, refreshRun: sync.refreshRun }}>
      <App />
    </ServicesProvider>,
  );
  return { calls, sock: () => FakeSocket.all[FakeSocket.all.length - 1]! };
}

const ok = (body: unknown): Route => () => [200, body];

describe("App", () => {
  it("lists runs, follows the selected run's events and shows the waiting approval", async () => {
    // The server's copy of the run: it follows the events the test plays.
    let current = run;
    const { calls, sock } = start({
      "GET /api/v1/info": ok(info),
      "GET /api/v1/agents": ok({ agents: [agent] }),
      "GET /api/v1/runs": ok({ runs: [run] }),
      "GET /api/v1/interactions?status=pending": ok({ interactions: [] }),
      "GET /api/v1/runs/run_1": () => [200, current],
      "POST /api/v1/runs/run_1/commands": (init) => [200, { command_id: JSON.parse(String(init?.body)).command_id, status: "accepted" }],
    });
    act(() => sock().open());

    expect((await screen.findByRole("textbox", { name: "Workspace" }) as HTMLInputElement).value).toBe("/home/me/ws");
    expect(screen.getAllByTestId("demo-label").length).toBeGreaterThan(0);

    const nav = screen.getByRole("navigation", { name: "Runs" });
    fireEvent.click(await within(nav).findByRole("button", { name: "Run run_1" }));
    expect(sock().sent).toContainEqual({ type: "subscribe", id: expect.any(String), run_id: "run_1", after: 0 });

    act(() => {
      const s = sock();
      s.event("run_1", 1, "run.created", { agent: { id: "ag_1", name: "demo", provider: "script", model: "", demo: true }, instructions: "Write hello.txt", workspace: "/home/me/ws", mode: "ask", max_steps: 5 });
      s.event("run_1", 2, "run.status", { status: "running" });
      s.event("run_1", 3, "node.started", { kind: "llm", label: "Model" }, "n_llm");
      s.event("run_1", 4, "llm.delta", { text: "Writing " }, "n_llm");
      s.event("run_1", 5, "llm.delta", { text: "the file." }, "n_llm");
      s.event("run_1", 6, "node.started", { kind: "tool", label: "write_file", tool: "write_file", arguments: { path: "hello.txt" }, risk: "write" }, "n_tool");
      s.event("run_1", 7, "approval.requested", { interaction_id: "ia_1", tool: "write_file", arguments: { path: "hello.txt" }, risk: "write", reason: "ask" }, "n_tool");
      current = { ...run, status: "waiting", last_seq: 8, capabilities: ["pause", "steer", "cancel", "fork"] };
      s.event("run_1", 8, "run.status", { status: "waiting" });
    });

    const transcript = screen.getByRole("region", { name: "Transcript" });
    expect(within(transcript).getByTestId("llm-text").textContent).toBe("Writing the file.");
    const card = within(transcript).getByTestId("tool-card");
    expect(card.dataset["tool"]).toBe("write_file");
    expect(card.dataset["status"]).toBe("waiting");
    expect(within(card).getByRole("button", { name: "Approve" })).toBeTruthy();
    expect(screen.getByTestId("run-status").textContent).toBe("waiting");

    const cancel = screen.getByRole("button", { name: "Cancel run" }) as HTMLButtonElement;
    await waitFor(() => expect(cancel.disabled).toBe(false));
    fireEvent.click(cancel);
    await waitFor(() => expect(calls.some((c) => c.url === "/api/v1/runs/run_1/commands")).toBe(true));
    const body = JSON.parse(String(calls.find((c) => c.url.endsWith("/commands"))!.init!.body));
    expect(body).toEqual({ command_id: expect.stringMatching(/^[0-9a-f-]{36}$/), type: "cancel" });
  });

  it("shows the signed-out page on a 401", async () => {
    const unauthorized: Route = () => [401, { error: { code: "unauthorized", message: "no session" } }];
    start({
      "GET /api/v1/info": unauthorized,
      "GET /api/v1/agents": unauthorized,
      "GET /api/v1/runs": unauthorized,
      "GET /api/v1/interactions?status=pending": unauthorized,
    });
    expect((await screen.findByRole("alert")).textContent).toBe(
      "StewardNot signed in: open the URL that steward serve printed (it carries the token).",
    );
  });
});
