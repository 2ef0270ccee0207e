import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Agent, AgentDefinition, Info, ToolSpec } from "../../api/types";
import { invalid, ok, renderWith, type Route } from "../settings/fakeApi";
import { AgentsPage } from "./AgentsPage";

afterEach(cleanup);

const info: Info = { version: "0.1.0", default_workspace: "/ws", provider: "script", demo: true, note: "", sandbox: { available: true } };

const catalog: ToolSpec[] = [
  { name: "read_file", description: "Reads a file of the workspace.", risk: "read", schema: {} },
  { name: "list_dir", description: "Lists a folder.", risk: "read", schema: {} },
  { name: "write_file", description: "Writes a file.", risk: "write", schema: {} },
  { name: "run_command", description: "Runs a command line.", risk: "exec", schema: {} },
];

const def: AgentDefinition = {
  id: "ag_1",
  name: "default",
  description: "General assistant",
  provider: "auto",
  model: "",
  system_prompt: "Be brief.",
  tools: ["read_file", "write_file"],
  mode: "ask",
  rules: [{ effect: "deny", tool: "write_file", match: "secrets/**" }],
  max_steps: 50,
  max_wall_time: "30m",
  script: "demo",
  created_at: 1,
  updated_at: 1,
  effective_provider: "script",
  effective_model: "demo-script",
  demo: true,
};

// agentsServer keeps a list of agents that POST, PUT and DELETE change.
function agentsServer(initial: AgentDefinition[], extra: Record<string, Route> = {}) {
  let list = [...initial];
  const routes: Record<string, Route> = {
    "GET /info": ok(info),
    "GET /agents": () => [200, { agents: list }],
    "GET /tools": ok({ tools: catalog }),
    "POST /agents": (body) => {
      const a = { ...(body as AgentDefinition), id: "ag_new", effective_provider: "openai", effective_model: "gpt-4.1", demo: false };
      list = [...list, a];
      return [201, a];
    },
    "DELETE /agents/ag_1": () => {
      list = list.filter((a) => a.id !== "ag_1");
      return [204, null];
    },
    ...extra,
  };
  for (const a of initial) routes[`GET /agents/${a.id}`] ??= ok(a);
  return routes;
}

const input = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const type = (label: string, value: string) => fireEvent.change(input(label), { target: { value } });

describe("AgentsPage", () => {
  it("lists the agents with what they resolve to", async () => {
    renderWith(<AgentsPage />, agentsServer([def]));
    const row = await screen.findByTestId("agent-row");
    expect(row.dataset["name"]).toBe("default");
    expect(row.textContent).toContain("auto → script");
    expect(row.textContent).toContain("demo-script");
    expect(within(row).getByTestId("demo-label")).toBeTruthy();
    expect(row.textContent).toContain("ask");
  });

  it("says what to do when there are no agents", async () => {
    renderWith(<AgentsPage />, agentsServer([]));
    expect((await screen.findByTestId("agents-empty")).textContent).toContain("New agent");
  });

  it("creates an agent with what was typed, then lists it and puts it in the store", async () => {
    const { sent, store } = renderWith(<AgentsPage />, agentsServer([def]), { agents: [def as Agent] });
    fireEvent.click(await screen.findByTestId("agent-new"));
    await screen.findByLabelText("Name");
    // A new agent starts with the read tools.
    expect((screen.getByRole("checkbox", { name: "read_file" }) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByRole("checkbox", { name: "write_file" }) as HTMLInputElement).checked).toBe(false);
    expect(screen.getAllByTestId("tool-risk").map((e) => e.textContent)).toEqual(["read", "read", "write", "exec"]);
    expect(screen.getByText("Writes a file.")).toBeTruthy();

    type("Name", "builder");
    type("Description", "Builds things");
    fireEvent.change(screen.getByLabelText("Provider"), { target: { value: "openai" } });
    type("Model", "gpt-4.1");
    type("Base URL", "http://127.0.0.1:11434/v1");
    type("System prompt", "You build.");
    fireEvent.click(screen.getByRole("checkbox", { name: "list_dir" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "write_file" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "run_command" }));
    fireEvent.change(screen.getByLabelText("Mode"), { target: { value: "edits" } });
    expect(screen.getByText(/changes to workspace files run/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Add rule" }));
    fireEvent.change(screen.getByLabelText("Rule 1 effect"), { target: { value: "deny" } });
    fireEvent.change(screen.getByLabelText("Rule 1 tool"), { target: { value: "run_command" } });
    type("Rule 1 match", "rm *");
    fireEvent.click(screen.getByRole("button", { name: "Add rule" }));
    fireEvent.click(screen.getByRole("button", { name: "Remove rule 2" }));
    type("Max steps", "20");
    type("Max tokens", "100000");
    type("Max cost (USD)", "0.5");
    type("Max wall time", "10m");
    fireEvent.click(screen.getByRole("checkbox", { name: "Pause before run_command" }));
    type("Approval timeout", "5m");
    fireEvent.change(screen.getByLabelText("When nobody answers"), { target: { value: "approve" } });
    type("Allowed domains", "docs.example.com\n *.example.org, localhost ");
    fireEvent.change(screen.getByLabelText("Command sandbox"), { target: { value: "on" } });
    fireEvent.change(screen.getByLabelText("Network for commands"), { target: { value: "on" } });
    fireEvent.click(screen.getByTestId("agent-save"));

    await waitFor(() => expect(sent("POST", "/agents")).toHaveLength(1));
    expect(sent("POST", "/agents")[0]!.body).toEqual({
      name: "builder",
      description: "Builds things",
      provider: "openai",
      model: "gpt-4.1",
      base_url: "http://127.0.0.1:11434/v1",
      system_prompt: "You build.",
      tools: ["read_file", "write_file", "run_command"],
      mode: "edits",
      rules: [{ effect: "deny", tool: "run_command", match: "rm *" }],
      max_steps: 20,
      max_tokens: 100000,
      max_cost_usd: 0.5,
      max_wall_time: "10m",
      break_before: ["run_command"],
      approval_timeout: "5m",
      approval_default: "approve",
      browser_domains: ["docs.example.com", "*.example.org", "localhost"],
      sandbox: "on",
      sandbox_network: "on",
    });
    // Back to the list, which holds the new agent, as does the store the new-run form reads.
    const rows = await screen.findAllByTestId("agent-row");
    expect(rows.map((r) => r.dataset["name"])).toEqual(["default", "builder"]);
    expect(screen.getByRole("status").textContent).toBe("Saved agent builder.");
    expect(store.getState().agents.map((a) => a.name)).toEqual(["default", "builder"]);
  });

  it("shows the server's 400 next to the form and keeps what was typed", async () => {
    const message = 'invalid agent: max_wall_time "x" must be a positive duration such as 30m or 2h';
    const { sent } = renderWith(<AgentsPage />, agentsServer([def], { "POST /agents": invalid(message) }));
    fireEvent.click(await screen.findByTestId("agent-new"));
    await screen.findByLabelText("Name");
    type("Name", "builder");
    type("System prompt", "Keep this.");
    type("Max wall time", "x");
    fireEvent.click(screen.getByTestId("agent-save"));

    expect((await screen.findByTestId("agent-error")).textContent).toBe(message);
    expect(sent("POST", "/agents")).toHaveLength(1);
    expect(screen.getByTestId("agent-editor")).toBeTruthy();
    expect(input("Name").value).toBe("builder");
    expect(input("System prompt").value).toBe("Keep this.");
    expect(input("Max wall time").value).toBe("x");
    // The field the message names is marked and described by it.
    expect(input("Max wall time").getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByRole("alert").id).toBe(input("Max wall time").getAttribute("aria-describedby"));
    expect(input("Name").getAttribute("aria-invalid")).toBeNull();
  });

  it("refuses a number that is not one without asking the server", async () => {
    const { sent } = renderWith(<AgentsPage />, agentsServer([def]));
    fireEvent.click(await screen.findByTestId("agent-new"));
    await screen.findByLabelText("Name");
    type("Name", "builder");
    type("Max steps", "many");
    fireEvent.click(screen.getByTestId("agent-save"));
    expect((await screen.findByTestId("agent-error")).textContent).toBe('max_steps "many" must be a whole number, 0 or more');
    expect(input("Max steps").getAttribute("aria-invalid")).toBe("true");
    expect(sent("POST", "/agents")).toHaveLength(0);
  });

  it("edits an agent read fresh from the server and sends it whole", async () => {
    const { sent } = renderWith(
      <AgentsPage />,
      agentsServer([def], { "PUT /agents/ag_1": (body) => [200, { ...def, ...(body as object) }] }),
    );
    fireEvent.click(await screen.findByRole("button", { name: "Edit agent default" }));
    await screen.findByLabelText("Name");
    expect(screen.getByRole("heading", { name: "Edit agent default" })).toBeTruthy();
    expect(input("Description").value).toBe("General assistant");
    expect(input("Rule 1 match").value).toBe("secrets/**");
    expect(input("Max wall time").value).toBe("30m");
    expect(input("Script").value).toBe("demo");
    type("Description", "Changed");
    // Dropping a tool drops its breakpoint too.
    fireEvent.click(screen.getByRole("checkbox", { name: "Pause before write_file" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "write_file" }));
    expect(screen.queryByRole("checkbox", { name: "Pause before write_file" })).toBeNull();
    fireEvent.click(screen.getByTestId("agent-save"));

    await waitFor(() => expect(sent("PUT", "/agents/ag_1")).toHaveLength(1));
    expect(sent("PUT", "/agents/ag_1")[0]!.body).toEqual({
      name: "default",
      description: "Changed",
      provider: "auto",
      model: "",
      system_prompt: "Be brief.",
      tools: ["read_file"],
      mode: "ask",
      rules: [{ effect: "deny", tool: "write_file", match: "secrets/**" }],
      max_steps: 50,
      max_wall_time: "30m",
      script: "demo",
      sandbox: "auto",
      sandbox_network: "off",
    });
    await screen.findByTestId("agent-row");
  });

  it("offers the MCP servers of config.json, and keeps a server's tools the agent names", async () => {
    const mcpDef = { ...def, tools: ["read_file", "mcp__fx__echo"] };
    const fx = { name: "fx", prefix: "mcp__fx__", type: "stdio", command: "fx-server", protocol: "auto", trusted: false, legacy: false, sessions: 0 };
    const gh = { name: "github", prefix: "mcp__github__", type: "http", url: "https://mcp.example/gh", protocol: "auto", trusted: true, legacy: false, sessions: 0 };
    const { sent } = renderWith(
      <AgentsPage />,
      agentsServer([mcpDef], {
        "GET /mcp/servers": ok({ servers: [fx, gh] }),
        "PUT /agents/ag_1": (body) => [200, { ...mcpDef, ...(body as object) }],
      }),
    );
    fireEvent.click(await screen.findByRole("button", { name: "Edit agent default" }));
    const group = await screen.findByTestId("mcp-tools");
    // The one tool of fx the agent names is kept, not listed as unknown.
    expect((within(group).getByRole("checkbox", { name: "mcp__fx__echo" }) as HTMLInputElement).checked).toBe(true);
    expect(screen.queryByText("Not offered by the server")).toBeNull();
    expect(within(group).getByText("untrusted")).toBeTruthy();
    fireEvent.click(within(group).getByRole("checkbox", { name: "mcp__github__*" }));
    fireEvent.click(screen.getByTestId("agent-save"));
    await waitFor(() => expect(sent("PUT", "/agents/ag_1")).toHaveLength(1));
    expect((sent("PUT", "/agents/ag_1")[0]!.body as { tools: string[] }).tools).toEqual(["read_file", "mcp__fx__echo", "mcp__github__*"]);
  });

  it("round-trips send_images: shown as saved, sent when ticked, left out when not", async () => {
    const withImages: AgentDefinition = { ...def, provider: "openai", model: "gpt-4o", send_images: true };
    const { sent } = renderWith(
      <AgentsPage />,
      agentsServer([withImages], { "PUT /agents/ag_1": (body) => [200, { ...withImages, ...(body as object) }] }),
    );
    fireEvent.click(await screen.findByRole("button", { name: "Edit agent default" }));
    const box = (await screen.findByRole("checkbox", { name: "Send screenshots to the model as images" })) as HTMLInputElement;
    expect(box.checked).toBe(true);
    expect(screen.getByText(/Only for models that accept images \(GPT-4o and later, Claude 3 and later, llava…\)/)).toBeTruthy();
    fireEvent.click(screen.getByTestId("agent-save"));
    await waitFor(() => expect(sent("PUT", "/agents/ag_1")).toHaveLength(1));
    expect(sent("PUT", "/agents/ag_1")[0]!.body).toMatchObject({ provider: "openai", model: "gpt-4o", send_images: true });

    await screen.findByTestId("agent-row");
    fireEvent.click(screen.getByRole("button", { name: "Edit agent default" }));
    fireEvent.click(await screen.findByRole("checkbox", { name: "Send screenshots to the model as images" }));
    fireEvent.click(screen.getByTestId("agent-save"));
    await waitFor(() => expect(sent("PUT", "/agents/ag_1")).toHaveLength(2));
    expect(sent("PUT", "/agents/ag_1")[1]!.body).not.toHaveProperty("send_images");
  });

  it("round-trips the sandbox settings and says when the sandbox cannot work here", async () => {
    const unsandboxed: AgentDefinition = { ...def, sandbox: "off", sandbox_network: "on" };
    const reason = "the command sandbox cannot work here: bubblewrap is not installed";
    const { sent } = renderWith(
      <AgentsPage />,
      agentsServer([unsandboxed], {
        "GET /info": ok({ ...info, sandbox: { available: false, reason } }),
        "PUT /agents/ag_1": invalid('invalid agent: sandbox "maybe" is not one of auto, on, off'),
      }),
      { info: { ...info, sandbox: { available: false, reason } } },
    );
    fireEvent.click(await screen.findByRole("button", { name: "Edit agent default" }));
    const mode = (await screen.findByLabelText("Command sandbox")) as HTMLSelectElement;
    const network = screen.getByLabelText("Network for commands") as HTMLSelectElement;
    expect([mode.value, network.value, network.disabled]).toEqual(["off", "on", true]);
    expect(screen.getByText(/can read and change what it can: your files, your keys/)).toBeTruthy();
    expect(screen.getByTestId("sandbox-unavailable").textContent).toBe(
      `The sandbox cannot work on this machine: ${reason}. With auto every command asks first; with on commands are refused.`,
    );
    fireEvent.change(mode, { target: { value: "on" } });
    expect(network.disabled).toBe(false);
    fireEvent.click(screen.getByTestId("agent-save"));
    await waitFor(() => expect(sent("PUT", "/agents/ag_1")).toHaveLength(1));
    expect(sent("PUT", "/agents/ag_1")[0]!.body).toMatchObject({ sandbox: "on", sandbox_network: "on" });
    // The server's refusal marks the field it names.
    await waitFor(() => expect(mode.getAttribute("aria-invalid")).toBe("true"));
  });

  it("offers send_images only for an agent that calls a model", async () => {
    renderWith(<AgentsPage />, agentsServer([def]));
    fireEvent.click(await screen.findByTestId("agent-new"));
    const box = (await screen.findByRole("checkbox", { name: "Send screenshots to the model as images" })) as HTMLInputElement;
    expect(box.checked).toBe(false);
    fireEvent.change(screen.getByLabelText("Provider"), { target: { value: "script" } });
    expect(screen.queryByRole("checkbox", { name: "Send screenshots to the model as images" })).toBeNull();
  });

  it("deletes an agent only after the confirm step", async () => {
    const { sent, store } = renderWith(<AgentsPage />, agentsServer([def]));
    fireEvent.click(await screen.findByTestId("agent-delete"));
    expect(sent("DELETE", "/agents/ag_1")).toHaveLength(0);
    expect(screen.getByRole("group", { name: "Delete agent default?" }).textContent).toContain("Its runs stay.");
    fireEvent.click(screen.getByTestId("agent-delete-confirm"));
    await screen.findByTestId("agents-empty");
    expect(sent("DELETE", "/agents/ag_1")).toHaveLength(1);
    expect(store.getState().agents).toEqual([]);
  });

  it("shows why an agent cannot run", async () => {
    const broken = { ...def, provider: "anthropic" as const, effective_provider: "unavailable: provider anthropic needs ANTHROPIC_API_KEY", effective_model: "", demo: false };
    renderWith(<AgentsPage />, agentsServer([broken]));
    expect((await screen.findByTestId("agent-unavailable")).textContent).toBe("anthropic: provider anthropic needs ANTHROPIC_API_KEY");
  });
});
