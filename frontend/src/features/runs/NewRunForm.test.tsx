import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Agent } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { NewRunForm } from "./NewRunForm";

afterEach(cleanup);

const agent = {
  id: "ag_1", name: "default", description: "", provider: "auto", model: "", system_prompt: "", tools: [], mode: "ask",
  max_steps: 50, created_at: 1, updated_at: 1, effective_provider: "openai", effective_model: "m", demo: false,
} as Agent;

function renderForm() {
  const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) =>
    new Response(JSON.stringify({ id: "run_1", status: "queued" }), { status: 201, headers: { "Content-Type": "application/json" } }),
  );
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
  return fetchMock;
}

const body = (m: ReturnType<typeof renderForm>) => JSON.parse(String((m.mock.calls[0]![1] as RequestInit).body));

describe("NewRunForm permission mode", () => {
  it("runs in the agent's mode unless one is chosen", async () => {
    const fetchMock = renderForm();
    expect(screen.getByRole("option", { name: "the agent's (ask)" })).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Workspace"), { target: { value: "/tmp/ws" } });
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(body(fetchMock)).not.toHaveProperty("mode");
  });

  it("sends the chosen mode as the run's override", async () => {
    const fetchMock = renderForm();
    fireEvent.change(screen.getByLabelText("Permission mode"), { target: { value: "edits" } });
    fireEvent.change(screen.getByLabelText("Workspace"), { target: { value: "/tmp/ws" } });
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(body(fetchMock)).toMatchObject({ agent: "ag_1", workspace: "/tmp/ws", mode: "edits" });
  });
});

describe("NewRunForm command sandbox", () => {
  it("keeps the agent's sandbox settings unless others are chosen", async () => {
    const fetchMock = renderForm();
    expect(screen.getByRole("option", { name: "the agent's (auto, network off)" })).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Workspace"), { target: { value: "/tmp/ws" } });
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(body(fetchMock)).not.toHaveProperty("sandbox");
    expect(body(fetchMock)).not.toHaveProperty("sandbox_network");
  });

  it("sends the chosen sandbox as the run's override", async () => {
    const fetchMock = renderForm();
    fireEvent.change(screen.getByLabelText("Command sandbox"), { target: { value: "on+net" } });
    fireEvent.change(screen.getByLabelText("Workspace"), { target: { value: "/tmp/ws" } });
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(body(fetchMock)).toMatchObject({ sandbox: "on", sandbox_network: "on" });
  });
});

describe("NewRunForm in the desktop window", () => {
  it("browses with the native folder dialog", async () => {
    const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) =>
      new Response(JSON.stringify({ path: "/home/me/project" }), { status: 200, headers: { "Content-Type": "application/json" } }),
    );
    const services: Services = {
      api: createApi({ fetch: fetchMock as unknown as typeof fetch }),
      store: createAppStore({
        agents: [agent],
        listsLoaded: true,
        info: { version: "t", default_workspace: "/tmp", provider: "openai", demo: false, note: "", sandbox: { available: true }, desktop: true },
      }),
      refreshLists: vi.fn(async () => {}),
      refreshRun: vi.fn(async () => {}),
    };
    render(
      <ServicesProvider value={services}>
        <NewRunForm />
      </ServicesProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Browse folders" }));
    await waitFor(() => expect((screen.getByLabelText("Workspace") as HTMLInputElement).value).toBe("/home/me/project"));
    expect(String(fetchMock.mock.calls[0]![0])).toContain("/api/v1/desktop/folder");
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
