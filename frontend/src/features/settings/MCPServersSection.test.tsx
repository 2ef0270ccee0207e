import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { MCPServer, MCPTest } from "../../api/types";
import { invalid, ok, renderWith, type Route } from "./fakeApi";
import { entryOf, parseEntries } from "./MCPServersSection";
import { SettingsPage } from "./SettingsPage";

afterEach(cleanup);

const github: MCPServer = {
  name: "github",
  prefix: "mcp__github__",
  type: "stdio",
  command: "npx",
  args: ["-y", "@modelcontextprotocol/server-github"],
  env: ["GITHUB_TOKEN"],
  protocol: "auto",
  trusted: false,
  disabled: false,
  legacy: false,
  sessions: 1,
};
const docs: MCPServer = { name: "docs", prefix: "mcp__docs__", type: "http", url: "https://mcp.example/docs", headers: ["Authorization"], protocol: "modern", trusted: true, disabled: false, legacy: false, sessions: 0 };

const listed: MCPTest = {
  server: "github",
  ok: true,
  era: "2026-07-28",
  millis: 42,
  tools: [
    { name: "mcp__github__get_issue", remote: "get_issue", description: "Read an issue.", annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: true }, risk: "exec" },
    { name: "", remote: "bad/name", risk: "exec", problem: "tool name bad/name: not a name" },
  ],
  stderr: "github server ready\n",
};

function start(test: MCPTest = listed, extra: Record<string, Route> = {}) {
  return renderWith(
    <SettingsPage section="mcp" />,
    { "GET /mcp/servers": ok({ servers: [github, docs] }), "POST /mcp/servers/github/test": ok(test), ...extra },
    { page: "mcp" },
  );
}

describe("MCP servers settings", () => {
  it("lists the servers by what they run or reach, with names of secrets only", async () => {
    start();
    const cards = await screen.findAllByTestId("mcp-server");
    expect(cards).toHaveLength(2);
    const gh = within(cards[0]!);
    expect(gh.getByText("npx -y @modelcontextprotocol/server-github")).toBeTruthy();
    expect(gh.getByText("untrusted")).toBeTruthy();
    expect(gh.getByText("env GITHUB_TOKEN; no network in the sandbox")).toBeTruthy();
    expect(gh.getByText("1 run connected")).toBeTruthy();
    const d = within(cards[1]!);
    expect(d.getByText("https://mcp.example/docs")).toBeTruthy();
    expect(d.getByText("trusted")).toBeTruthy();
    expect(d.getByText(/headers Authorization/)).toBeTruthy();
  });

  it("tests a connection: era, tools with annotations and risk, tools not offered, stderr", async () => {
    const { sent } = start();
    const card = (await screen.findAllByTestId("mcp-server"))[0]!;
    fireEvent.click(within(card).getByRole("button", { name: "Test connection" }));
    await waitFor(() => expect(within(card).getByRole("status").textContent).toContain("protocol 2026-07-28: 2 tools"));
    expect(sent("POST", "/mcp/servers/github/test")).toHaveLength(1);
    const rows = within(card).getAllByTestId("mcp-tool");
    expect(rows[0]!.textContent).toContain("mcp__github__get_issue");
    expect(rows[0]!.textContent).toContain("read-only, open world");
    expect(within(rows[0]!).getByText("exec").className).toBe("risk risk-exec");
    expect(rows[1]!.textContent).toContain("Not offered: tool name bad/name");
    expect(within(card).getByText("github server ready")).toBeTruthy();
  });

  it("shows why a server could not be reached", async () => {
    start({ server: "github", ok: false, error: "MCP server github could not be started: exec: npx: not found", tools: [], millis: 3 });
    const card = (await screen.findAllByTestId("mcp-server"))[0]!;
    fireEvent.click(within(card).getByRole("button", { name: "Test connection" }));
    expect((await within(card).findByRole("alert")).textContent).toContain("npx: not found");
  });

  it("adds a server from its pasted entry, or each of a pasted mcpServers", async () => {
    const added: MCPServer = { ...github, name: "fs", prefix: "mcp__fs__", command: "npx", args: ["server-fs"], env: [], sessions: 0 };
    const { sent } = start(listed, {
      "PUT /mcp/servers/fs": ok({ servers: [docs, added, github] }),
      "PUT /mcp/servers/mem": ok({ servers: [docs, added, github, { ...added, name: "mem", prefix: "mcp__mem__" }] }),
    });
    fireEvent.click(await screen.findByRole("button", { name: "Add a server" }));
    const form = screen.getByRole("form", { name: "Add an MCP server" });
    fireEvent.change(within(form).getByLabelText("Name"), { target: { value: "fs" } });
    fireEvent.change(within(form).getByLabelText("Entry"), { target: { value: '{"command": "npx", "args": ["server-fs"]}' } });
    fireEvent.click(within(form).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(3));
    expect(sent("PUT", "/mcp/servers/fs")[0]!.body).toEqual({ command: "npx", args: ["server-fs"] });

    fireEvent.click(screen.getByRole("button", { name: "Add a server" }));
    const again = screen.getByRole("form", { name: "Add an MCP server" });
    fireEvent.change(within(again).getByLabelText("Entry"), {
      target: { value: '{"mcpServers": {"mem": {"command": "npx", "args": ["server-memory"]}}}' },
    });
    fireEvent.click(within(again).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(4));
    expect(sent("PUT", "/mcp/servers/mem")[0]!.body).toEqual({ command: "npx", args: ["server-memory"] });
  });

  it("edits a server with its secret values kept unseen, as null", async () => {
    const edited = { ...github, args: ["-y", "@modelcontextprotocol/server-github", "--read-only"] };
    const { sent } = start(listed, { "PUT /mcp/servers/github": ok({ servers: [edited, docs] }) });
    const card = (await screen.findAllByTestId("mcp-server"))[0]!;
    fireEvent.click(within(card).getByRole("button", { name: "Edit" }));
    const form = within(card).getByRole("form", { name: "Edit MCP server github" });
    expect((within(form).getByLabelText("Name") as HTMLInputElement).readOnly).toBe(true);
    const entry = within(form).getByLabelText("Entry") as HTMLTextAreaElement;
    expect(JSON.parse(entry.value)).toEqual({ command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_TOKEN: null } });
    expect(form.textContent).toContain("keeps the one saved");
    const next = JSON.parse(entry.value);
    next.args.push("--read-only");
    fireEvent.change(entry, { target: { value: JSON.stringify(next) } });
    fireEvent.click(within(form).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(screen.getByText("npx -y @modelcontextprotocol/server-github --read-only")).toBeTruthy());
    expect(sent("PUT", "/mcp/servers/github")[0]!.body).toEqual({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github", "--read-only"],
      env: { GITHUB_TOKEN: null },
    });
    expect(screen.queryByRole("form", { name: "Edit MCP server github" })).toBeNull();
  });

  it("keeps trust, protocol, sharing and headers of an http server it edits", () => {
    expect(entryOf(docs)).toEqual({ type: "http", url: "https://mcp.example/docs", headers: { Authorization: null }, protocol: "modern", trusted: true });
    expect(entryOf({ ...docs, shared: true, trusted: false })).toMatchObject({ shared: true });
  });

  it("shows why the server refused an entry and keeps the form", async () => {
    start(listed, { "PUT /mcp/servers/web": invalid('invalid settings: mcpServers.web: url is missing: an http server needs its endpoint') });
    fireEvent.click(await screen.findByRole("button", { name: "Add a server" }));
    const form = screen.getByRole("form", { name: "Add an MCP server" });
    fireEvent.change(within(form).getByLabelText("Name"), { target: { value: "web" } });
    fireEvent.change(within(form).getByLabelText("Entry"), { target: { value: '{"type": "http"}' } });
    fireEvent.click(within(form).getByRole("button", { name: "Save" }));
    expect((await within(form).findByRole("alert")).textContent).toContain("url is missing");
    expect((within(form).getByLabelText("Entry") as HTMLTextAreaElement).value).toBe('{"type": "http"}');
  });

  it("disables, trusts after confirming, and removes after confirming", async () => {
    const { sent } = start(listed, {
      "PUT /mcp/servers/github/state": (body) => [200, { servers: [{ ...github, ...(body as object) }, docs] }],
      "DELETE /mcp/servers/github": ok({ servers: [docs] }),
    });
    let card = (await screen.findAllByTestId("mcp-server"))[0]!;
    fireEvent.click(within(card).getByRole("button", { name: "Disable" }));
    await waitFor(() => expect(within(screen.getAllByTestId("mcp-server")[0]!).getByText("disabled")).toBeTruthy());
    expect(sent("PUT", "/mcp/servers/github/state")[0]!.body).toEqual({ disabled: true });
    card = screen.getAllByTestId("mcp-server")[0]!;
    fireEvent.click(within(card).getByRole("button", { name: "Trust…" }));
    expect(sent("PUT", "/mcp/servers/github/state")).toHaveLength(1);
    fireEvent.click(within(card).getByRole("button", { name: "Trust github" }));
    await waitFor(() => expect(sent("PUT", "/mcp/servers/github/state")).toHaveLength(2));
    expect(sent("PUT", "/mcp/servers/github/state")[1]!.body).toEqual({ trusted: true });
    card = screen.getAllByTestId("mcp-server")[0]!;
    fireEvent.click(within(card).getByRole("button", { name: "Remove…" }));
    fireEvent.click(within(card).getByRole("button", { name: "Remove github" }));
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(1));
  });
});

describe("a server's status and log", () => {
  it("shows what last became of it in a run, and the end of its stderr", async () => {
    renderWith(
      <SettingsPage section="mcp" />,
      {
        "GET /mcp/servers": ok({
          servers: [
            { ...github, sandbox_network: "on", keys: { create_issue: "repo" }, status: { state: "crashed", reason: "exit status 1", at: 1764660000000, run: "run_7" }, log: "github: token [REDACTED:configured]\nbye" },
          ],
        }),
      },
      { page: "mcp" },
    );
    const card = within(await screen.findByTestId("mcp-server"));
    expect(card.getByText("env GITHUB_TOKEN; network in the sandbox; keys create_issue: repo")).toBeTruthy();
    const status = card.getByTestId("mcp-status");
    expect(status.textContent).toMatch(/^Last in a run: crashed \(exit status 1\) at .+, in run_7$/);
    expect(status.className).toContain("mcp-status-crashed");
    expect(card.getByTestId("mcp-log").textContent).toBe("github: token [REDACTED:configured]\nbye");
  });
});

describe("parseEntries", () => {
  it("reads one entry or a whole mcpServers, and says what is wrong", () => {
    expect(parseEntries(" gh ", '{"command": "x"}')).toEqual([["gh", { command: "x" }]]);
    expect(parseEntries("", '{"mcpServers": {"a": {"url": "u"}, "b": {"command": "y"}}}')).toEqual([
      ["a", { url: "u" }],
      ["b", { command: "y" }],
    ]);
    expect(() => parseEntries("gh", "{nope")).toThrow(/not JSON/);
    expect(() => parseEntries("gh", '["x"]')).toThrow(/paste an object/);
    expect(() => parseEntries("", '{"command": "x"}')).toThrow(/give the server a name/);
    expect(() => parseEntries("", '{"mcpServers": {}}')).toThrow(/names no server/);
  });
});
