import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Run, RunSandbox } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { RunView } from "./RunView";

afterEach(cleanup);

const run = {
  id: "run_s", agent_id: "ag_1", agent_name: "builder", status: "running", instructions: "Build",
  workspace: "/ws", mode: "auto", provider: "openai", model: "m", demo: false, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 1, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["pause", "cancel"],
} satisfies Run;

// setup shows a run whose run.created carries sandbox (none: a run recorded
// before runs said so).
function setup(sandbox?: RunSandbox, r: Run = run) {
  const store = createAppStore({ runs: [r], selectedRunId: r.id });
  store.getState().applyEvent({
    run_id: r.id, seq: 1, ts: 1, type: "run.created",
    data: { agent: { id: "ag_1", name: "builder", provider: "openai", model: "m" }, instructions: "Build", workspace: "/ws", mode: "auto", max_steps: 9, ...(sandbox ? { sandbox } : {}) },
  });
  render(
    <ServicesProvider value={{ api: createApi({ fetch: vi.fn() }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
      <RunView />
    </ServicesProvider>,
  );
}

describe("the run's command sandbox", () => {
  it("says commands are sandboxed, without a banner", () => {
    setup({ mode: "auto", network: "off", confined: true });
    expect(screen.getByTestId("sandbox-badge").textContent).toBe("sandboxed");
    expect(screen.getByTestId("sandbox-badge").title).toContain("no network");
    expect(screen.queryByTestId("sandbox-banner")).toBeNull();
  });

  it("says when sandboxed commands have the network", () => {
    setup({ mode: "on", network: "on", confined: true });
    expect(screen.getByTestId("sandbox-badge").textContent).toBe("sandboxed · network");
  });

  it("warns, with the reason, that every command asks where auto cannot sandbox", () => {
    setup({ mode: "auto", network: "off", confined: false, reason: "the command sandbox cannot work here: bubblewrap is not installed" });
    expect(screen.getByTestId("sandbox-badge").textContent).toBe("not sandboxed");
    const banner = screen.getByRole("note", { name: "Command sandbox" });
    expect(banner.textContent).toBe(
      "Commands cannot be sandboxed on this machine (the command sandbox cannot work here: bubblewrap is not installed). They run as Steward's user, so every command asks for your approval, whatever the mode.",
    );
  });

  it("says commands are refused when the sandbox is on and cannot work", () => {
    setup({ mode: "on", network: "off", confined: false, reason: "no user namespaces" });
    expect(screen.getByTestId("sandbox-banner").textContent).toContain("its commands are refused");
  });

  it("says what off risks", () => {
    setup({ mode: "off", network: "off", confined: false, reason: "the sandbox is off for this run" });
    expect(screen.getByTestId("sandbox-banner").textContent).toContain("can read and change what that user can (your files, your keys, the network)");
  });

  it("shows nothing for a run that does not say, or an imported one", () => {
    setup();
    expect(screen.queryByTestId("sandbox-badge")).toBeNull();
    cleanup();
    setup({ mode: "off", network: "off", confined: false }, { ...run, imported_from: "run_elsewhere", capabilities: ["fork"] });
    expect(screen.queryByTestId("sandbox-badge")).toBeNull();
    expect(screen.queryByTestId("sandbox-banner")).toBeNull();
  });
});
