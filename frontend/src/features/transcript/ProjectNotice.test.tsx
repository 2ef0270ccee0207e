import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Run, RunProjectServers } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { RunView } from "./RunView";

afterEach(cleanup);

const run = {
  id: "run_p", agent_id: "ag_1", agent_name: "builder", status: "running", instructions: "Build",
  workspace: "/ws", mode: "ask", provider: "openai", model: "m", demo: false, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 1, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["pause", "cancel"],
} satisfies Run;

// setup shows a run whose run.created carries project_servers (none: an
// agent without project servers).
function setup(project?: RunProjectServers) {
  const store = createAppStore({ runs: [run], selectedRunId: run.id });
  store.getState().applyEvent({
    run_id: run.id, seq: 1, ts: 1, type: "run.created",
    data: { agent: { id: "ag_1", name: "builder", provider: "openai", model: "m" }, instructions: "Build", workspace: "/ws", mode: "ask", max_steps: 9, ...(project ? { project_servers: project } : {}) },
  });
  render(
    <ServicesProvider value={{ api: createApi({ fetch: vi.fn() }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
      <RunView />
    </ServicesProvider>,
  );
}

describe("the run's project MCP servers", () => {
  it("names the servers an approved .mcp.json offered, and those refused", () => {
    setup({ file: "/ws/.mcp.json", state: "approved", sha256: "a".repeat(64), servers: ["db"], refused: [{ name: "github", reason: "your server github has this name" }] });
    const banner = screen.getByRole("note", { name: "Project MCP servers" });
    expect(banner.textContent).toContain("Project MCP servers offered: db (from /ws/.mcp.json, approved).");
    expect(banner.textContent).toContain("Not offered: github: your server github has this name");
    expect(banner.className).toContain("project-approved");
  });

  it("says why none was offered when the file changed since its approval", () => {
    setup({ file: "/ws/.mcp.json", state: "changed", sha256: "b".repeat(64) });
    expect(screen.getByRole("note", { name: "Project MCP servers" }).textContent).toContain(
      "/ws/.mcp.json changed since you approved it, so none of its servers is offered to this run",
    );
  });

  it("says nothing for a run without project servers or a workspace without the file", () => {
    setup();
    expect(screen.queryByTestId("project-banner")).toBeNull();
    cleanup();
    setup({ file: "/ws/.mcp.json", state: "none" });
    expect(screen.queryByTestId("project-banner")).toBeNull();
  });
});
