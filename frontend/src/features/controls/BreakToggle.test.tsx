import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, Run } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { BreakToggle } from "./BreakToggle";

afterEach(cleanup);

const base = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "paused", instructions: "go",
  workspace: "/ws", mode: "ask", provider: "script", model: "", demo: false, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 1, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 },
  capabilities: ["continue", "step", "steer", "cancel", "fork", "break", "unbreak"],
} satisfies Run;

const created: Event = {
  run_id: "run_1", seq: 1, ts: 1, type: "run.created",
  data: { agent: { id: "ag_1", name: "demo", provider: "script", model: "" }, instructions: "go", workspace: "/ws", mode: "ask", max_steps: 5, break_before: ["list_dir"] },
};

function setup(run: Run) {
  const bodies: unknown[] = [];
  const fetchFake = vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init?.body)));
    return Response.json({ command_id: "x", status: "accepted" });
  });
  const store = createAppStore({ runs: [run], selectedRunId: run.id });
  store.getState().applyEvent(created);
  const services: Services = {
    api: createApi({ fetch: fetchFake as unknown as typeof fetch }),
    store,
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(
    <ServicesProvider value={services}>
      <BreakToggle runId="run_1" tool="write_file" />
      <BreakToggle runId="run_1" tool="list_dir" />
    </ServicesProvider>,
  );
  return { bodies, store };
}

describe("BreakToggle", () => {
  it("shows the run's breakpoints, sends break and unbreak, and follows run.breakpoints", async () => {
    const { bodies, store } = setup(base);
    const write = screen.getByRole("checkbox", { name: "Pause before every write_file call" }) as HTMLInputElement;
    const list = screen.getByRole("checkbox", { name: "Pause before every list_dir call" }) as HTMLInputElement;
    expect(write.checked).toBe(false);
    expect(list.checked).toBe(true); // from run.created's break_before

    fireEvent.click(write);
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0]).toMatchObject({ type: "break", tool: "write_file" });
    fireEvent.click(list);
    await waitFor(() => expect(bodies).toHaveLength(2));
    expect(bodies[1]).toMatchObject({ type: "unbreak", tool: "list_dir" });

    // The log says what holds.
    store.getState().applyEvent({ run_id: "run_1", seq: 2, ts: 2, type: "run.breakpoints", data: { break_before: ["write_file"] } });
    await waitFor(() => expect(write.checked).toBe(true));
    expect(list.checked).toBe(false);
  });

  it("is disabled with the reason once the run has ended", () => {
    setup({ ...base, status: "completed", capabilities: ["fork"] });
    const write = screen.getByRole("checkbox", { name: "Pause before every write_file call" }) as HTMLInputElement;
    expect(write.disabled).toBe(true);
    expect(write.closest("label")?.title).toBe("The run is completed");
  });
});
