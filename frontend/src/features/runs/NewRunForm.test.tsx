import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Agent } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { NewRunForm } from "./NewRunForm";

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const agent = {
  id: "ag_1", name: "default", description: "", provider: "auto", model: "", system_prompt: "", tools: ["read_file", "write_file", "run_command"], break_before: ["run_command"], mode: "ask",
  max_steps: 50, created_at: 1, updated_at: 1, effective_provider: "openai", effective_model: "m", demo: false,
} as Agent;

function renderForm(a: Agent = agent, status = 201) {
  const answer = status === 201 ? { id: "run_1", status: "queued" } : { error: { code: "invalid", message: "workspace: no such folder" } };
  const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) =>
    new Response(JSON.stringify(answer), { status, headers: { "Content-Type": "application/json" } }),
  );
  const services: Services = {
    api: createApi({ fetch: fetchMock as unknown as typeof fetch }),
    store: createAppStore({ agents: [a], listsLoaded: true }),
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

describe("NewRunForm options", () => {
  const start = async (m: ReturnType<typeof renderForm>) => {
    fireEvent.change(screen.getByLabelText("Workspace"), { target: { value: "/tmp/ws" } });
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    await waitFor(() => expect(m).toHaveBeenCalled());
    return body(m);
  };

  it("is a fold, closed at first, and sends no override when left alone", async () => {
    const fetchMock = renderForm();
    const fold = screen.getByTestId("run-options") as HTMLDetailsElement;
    expect(fold.open).toBe(false);
    expect(fold.querySelector("summary")!.textContent).toBe("Options");
    const sent = await start(fetchMock);
    for (const k of ["model", "limits", "break_before", "mode"]) expect(sent).not.toHaveProperty(k);
  });

  it("sends the model, budgets and breakpoints set, and counts them in its summary", async () => {
    const fetchMock = renderForm();
    fireEvent.change(screen.getByLabelText("Model"), { target: { value: " qwen2.5:7b " } });
    fireEvent.change(screen.getByLabelText("Max steps"), { target: { value: "3" } });
    fireEvent.change(screen.getByLabelText("Max cost (USD)"), { target: { value: "0.5" } });
    fireEvent.change(screen.getByLabelText("Max wall time (minutes)"), { target: { value: "1.5" } });
    fireEvent.click(screen.getByLabelText("Pause before write_file"));
    // The agent's own breakpoint shows, and cannot be taken off here.
    const own = screen.getByLabelText("Pause before run_command") as HTMLInputElement;
    expect(own.checked && own.disabled).toBe(true);
    expect(screen.getByTestId("run-options").querySelector("summary")!.textContent).toBe("Options (5 set)");
    const sent = await start(fetchMock);
    expect(sent).toMatchObject({
      model: "qwen2.5:7b",
      limits: { max_steps: 3, max_cost_usd: 0.5, max_wall_time_ms: 90_000 },
      break_before: ["write_file"],
    });
    expect(sent.limits).not.toHaveProperty("max_tokens");
  });

  it("names a bad budget and sends nothing", async () => {
    const fetchMock = renderForm();
    fireEvent.change(screen.getByLabelText("Max steps"), { target: { value: "2.5" } });
    fireEvent.change(screen.getByLabelText("Workspace"), { target: { value: "/tmp/ws" } });
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    expect((await screen.findByRole("alert")).textContent).toBe('Max steps: "2.5" is not a whole number above 0');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("offers no model for an agent that plays a script", () => {
    renderForm({ ...agent, effective_provider: "script", demo: true });
    const model = screen.getByLabelText("Model") as HTMLInputElement;
    expect(model.disabled).toBe(true);
    expect(model.placeholder).toBe("a script takes no model");
  });
});

describe("NewRunForm workspace", () => {
  it("remembers the workspace of the last run started and offers it again", async () => {
    const fetchMock = renderForm();
    fireEvent.change(screen.getByLabelText("Instructions"), { target: { value: "go" } });
    fireEvent.change(screen.getByLabelText("Workspace"), { target: { value: "/home/me/proj" } });
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    await waitFor(() => expect(localStorage.getItem("steward.lastWorkspace")).toBe("/home/me/proj"));
    cleanup();
    renderForm();
    expect((screen.getByLabelText("Workspace") as HTMLInputElement).value).toBe("/home/me/proj");
  });

  it("keeps no workspace whose run did not start", async () => {
    renderForm(agent, 400);
    fireEvent.change(screen.getByLabelText("Workspace"), { target: { value: "/nope" } });
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    await screen.findByRole("alert");
    expect(localStorage.getItem("steward.lastWorkspace")).toBeNull();
  });
});
