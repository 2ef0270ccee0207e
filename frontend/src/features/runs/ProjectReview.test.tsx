import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Agent, ProjectView } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { NewRunForm } from "./NewRunForm";

afterEach(cleanup);

const agent = {
  id: "ag_1", name: "default", description: "", provider: "auto", model: "", system_prompt: "", tools: [], mode: "ask",
  max_steps: 50, created_at: 1, updated_at: 1, effective_provider: "openai", effective_model: "m", demo: false, project_servers: true,
} as Agent;

const pending: ProjectView = {
  workspace: "/tmp/ws",
  file: "/tmp/ws/.mcp.json",
  state: "unapproved",
  sha256: "a".repeat(64),
  servers: [
    { name: "db", prefix: "mcp__db__", type: "stdio", entry: { command: "./bin/db-mcp", args: ["--token", "${DB_TOKEN}"], env: { MODE: "ro" }, cwd: "/tmp/ws" } },
    { name: "api", prefix: "mcp__api__", type: "http", entry: { type: "http", url: "https://api.example/mcp" } },
  ],
  refused: [{ name: "github", reason: "your server github (config.json) has this name: a project cannot take its place" }],
  reads: ["DB_TOKEN"],
};

function renderWith(answers: Record<string, ProjectView | { status: number; body: unknown }>) {
  const fetchMock = vi.fn(async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = String(input);
    const key = `${init?.method ?? "GET"} ${url.replace(/\?.*/, "")}`;
    const a = answers[key];
    if (!a) return new Response("{}", { status: 404 });
    if ("status" in a && "body" in a) return new Response(JSON.stringify(a.body), { status: a.status, headers: { "Content-Type": "application/json" } });
    return new Response(JSON.stringify(a), { status: 200, headers: { "Content-Type": "application/json" } });
  });
  const services: Services = {
    api: createApi({ fetch: fetchMock as unknown as typeof fetch }),
    store: createAppStore({ agents: [agent], listsLoaded: true }),
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(
    <ServicesProvider value={services}>
      <NewRunForm />
    </ServicesProvider>,
  );
  fireEvent.change(screen.getByLabelText("Workspace"), { target: { value: "/tmp/ws" } });
  return fetchMock;
}

describe("ProjectReview", () => {
  it("shows what an unapproved .mcp.json would run, and approves the file as shown", async () => {
    const fetchMock = renderWith({
      "GET /api/v1/mcp/project": pending,
      "POST /api/v1/mcp/project/approve": { ...pending, state: "approved" },
    });
    const review = await screen.findByTestId("project-review");
    expect(review.textContent).toContain("asks to run these MCP servers");
    expect(review.textContent).toContain("./bin/db-mcp --token ${DB_TOKEN}");
    expect(review.textContent).toContain("MODE=ro");
    expect(review.textContent).toContain("https://api.example/mcp");
    expect(review.textContent).toContain("Not offered: github");
    expect(review.textContent).toContain("variables of your environment, and their values go to the servers: DB_TOKEN");
    fireEvent.click(screen.getByRole("button", { name: "Approve this .mcp.json" }));
    await waitFor(() => expect(screen.getByTestId("project-review").textContent).toContain("Project servers (approved): db, api"));
    const approve = fetchMock.mock.calls.find(([u, i]) => String(u).endsWith("/mcp/project/approve") && i?.method === "POST");
    expect(JSON.parse(String(approve![1]!.body))).toEqual({ workspace: "/tmp/ws", sha256: "a".repeat(64) });
  });

  it("says so when the file changed after it was shown, and approves nothing", async () => {
    renderWith({
      "GET /api/v1/mcp/project": { ...pending, state: "changed" },
      "POST /api/v1/mcp/project/approve": { status: 409, body: { error: { code: "conflict", message: "the file changed: /tmp/ws/.mcp.json is not the file you were shown" } } },
    });
    const review = await screen.findByTestId("project-review");
    expect(review.textContent).toContain("changed since you approved it");
    fireEvent.click(screen.getByRole("button", { name: "Approve this .mcp.json" }));
    expect((await screen.findByRole("alert")).textContent).toContain("is not the file you were shown");
  });

  it("shows nothing for an agent without project servers", async () => {
    const fetchMock = vi.fn();
    const services: Services = {
      api: createApi({ fetch: fetchMock as unknown as typeof fetch }),
      store: createAppStore({ agents: [{ ...agent, project_servers: false }], listsLoaded: true }),
      refreshLists: vi.fn(async () => {}),
      refreshRun: vi.fn(async () => {}),
    };
    render(
      <ServicesProvider value={services}>
        <NewRunForm />
      </ServicesProvider>,
    );
    fireEvent.change(screen.getByLabelText("Workspace"), { target: { value: "/tmp/ws" } });
    await new Promise((r) => setTimeout(r, 400));
    expect(screen.queryByTestId("project-review")).toBeNull();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
