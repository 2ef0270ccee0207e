import { useCallback, useEffect, useId, useState, type FormEvent } from "react";
import type { MCPServer, MCPTest, MCPTool } from "../../api/types";
import { useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";

// MCPServersSection lists the MCP servers of config.json, each with what it
// runs or reaches, its trust and protocol, and a "Test connection" that
// connects as a run's first call would: the era it speaks, its tools with
// the server's annotations and the risk Steward gives them, and the end of
// its stderr. Servers are added by pasting their entry (or a whole
// {"mcpServers": ...} from another app), and enabled, disabled, trusted or
// removed here; each change is saved in config.json and applies at once.
// Secrets never reach the page: env variables and headers come by name
// only.
export function MCPServersSection() {
  const { api } = useServices();
  const [servers, setServers] = useState<MCPServer[]>();
  const [error, setError] = useState<string>();
  const [adding, setAdding] = useState(false);

  const load = useCallback(async () => {
    try {
      setServers(await api.mcpServers());
      setError(undefined);
    } catch (err) {
      setError(`Could not read the MCP servers: ${errorMessage(err)}`);
    }
  }, [api]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="page mcp-section" aria-label="MCP servers" data-testid="mcp-section">
      <header className="page-head">
        <h1>MCP servers</h1>
        <span className="spacer" />
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
        <button type="button" className="primary" onClick={() => setAdding(true)} disabled={adding}>
          Add a server
        </button>
      </header>
      <p className="muted">
        The servers of <code>mcpServers</code> in config.json, in the shape Claude Desktop, Claude Code and Cursor use. An agent
        uses a server's tools when its tools name them (<code>mcp__server__*</code>). A server is untrusted until you trust it (its entry then says{" "}
        <code>"trusted": true</code>): until then its tools ask in every mode but auto, whatever its annotations claim. Changes
        made here are saved in config.json and apply at once; edits of the file by hand apply when Steward starts again.
      </p>
      {adding && (
        <AddServer
          onDone={(list) => {
            if (list) setServers(list);
            setAdding(false);
          }}
        />
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {servers?.length === 0 && (
        <p className="empty" data-testid="mcp-empty">
          No MCP server is configured.
        </p>
      )}
      {servers?.map((s) => <ServerCard key={s.name} s={s} onServers={setServers} />)}
    </section>
  );
}

// parseEntries reads what was pasted: one server's entry (named by name),
// or a whole {"mcpServers": {...}} as other apps keep it.
export function parseEntries(name: string, text: string): [string, unknown][] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON: ${errorMessage(err)}`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error('paste an object: {"command": ..., "args": [...]}');
  const all = (v as { mcpServers?: unknown }).mcpServers;
  if (all !== undefined) {
    if (typeof all !== "object" || all === null || Array.isArray(all)) throw new Error("mcpServers must be an object of servers by name");
    const entries = Object.entries(all);
    if (entries.length === 0) throw new Error("mcpServers names no server");
    return entries;
  }
  if (name.trim() === "") throw new Error("give the server a name: its tools are mcp__name__*");
  return [[name.trim(), v]];
}

/**
 * entryOf is a server's entry as config.json holds it, for editing: the
 * values of its env and headers are never sent to the UI (they are often
 * secrets), so each is null, which the server reads as "keep the saved
 * value".
 */
export function entryOf(s: MCPServer): Record<string, unknown> {
  const e: Record<string, unknown> = {};
  if (s.type === "stdio") {
    e.command = s.command;
    if (s.args?.length) e.args = s.args;
    if (s.cwd) e.cwd = s.cwd;
  } else {
    e.type = s.type;
    e.url = s.url;
  }
  const kept = (names?: string[]) => Object.fromEntries((names ?? []).map((n) => [n, null]));
  if (s.env?.length) e.env = kept(s.env);
  if (s.headers?.length) e.headers = kept(s.headers);
  if (s.bearer_token_env) e.bearer_token_env = s.bearer_token_env;
  if (s.protocol && s.protocol !== "auto") e.protocol = s.protocol;
  if (s.keys && Object.keys(s.keys).length > 0) e.keys = s.keys;
  if (s.type === "stdio" && s.sandbox_network === "on") e.sandbox_network = "on";
  if (s.trusted) e.trusted = true;
  if (s.disabled) e.disabled = true;
  if (s.shared) e.shared = true;
  return e;
}

function AddServer({ onDone, editing }: { onDone: (servers?: MCPServer[]) => void; editing?: MCPServer }) {
  const { api } = useServices();
  const id = useId();
  const [name, setName] = useState(editing?.name ?? "");
  const [text, setText] = useState(editing ? JSON.stringify(entryOf(editing), null, 2) : "");
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);

  async function save(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    let entries: [string, unknown][];
    try {
      entries = parseEntries(name, text);
    } catch (err) {
      setError(errorMessage(err));
      return;
    }
    setSaving(true);
    let list: MCPServer[] | undefined;
    try {
      // One at a time: each is checked whole, and the first refused says why.
      for (const [n, entry] of entries) list = await api.putMCPServer(n, entry);
      onDone(list);
    } catch (err) {
      setError(errorMessage(err));
      if (list) onDone(list);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form
      className="provider-card mcp-add"
      aria-label={editing ? `Edit MCP server ${editing.name}` : "Add an MCP server"}
      onSubmit={(e) => void save(e)}
    >
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          value={name}
          readOnly={!!editing}
          onChange={(e) => setName(e.target.value)}
          placeholder="github"
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-entry`}>Entry</label>
        <textarea
          id={`${id}-entry`}
          aria-label="Entry"
          rows={6}
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder={'{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}'}
        />
        <p className="hint muted">
          As Claude Desktop, Claude Code or Cursor keep it, or their whole <code>{'{"mcpServers": {...}}'}</code> (then the
          name comes from each entry). <code>{"${VAR}"}</code> is read from the environment when the server starts.
          {editing && (
            <>
              {" "}
              A value left <code>null</code> in <code>env</code> or <code>headers</code> keeps the one saved, which is never
              shown here.
            </>
          )}
        </p>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving}>
          {saving ? "Saving…" : "Save"}
        </button>
        <button type="button" onClick={() => onDone()} disabled={saving}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function ServerCard({ s, onServers }: { s: MCPServer; onServers: (list: MCPServer[]) => void }) {
  const { api } = useServices();
  const [test, setTest] = useState<MCPTest>();
  const [testing, setTesting] = useState(false);
  const [error, setError] = useState<string>();
  const [confirm, setConfirm] = useState<"trust" | "remove">();
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);

  async function change(f: () => Promise<MCPServer[]>) {
    setBusy(true);
    setError(undefined);
    try {
      onServers(await f());
      setConfirm(undefined);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  async function run() {
    setTesting(true);
    setError(undefined);
    try {
      setTest(await api.testMCPServer(s.name));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setTesting(false);
    }
  }

  const target = s.type === "stdio" ? [s.command, ...(s.args ?? [])].join(" ") : s.url;
  const given = [
    s.cwd && `in ${s.cwd}`,
    s.env?.length && `env ${s.env.join(", ")}`,
    s.headers?.length && `headers ${s.headers.join(", ")}`,
    s.bearer_token_env && `bearer token from $${s.bearer_token_env}`,
    s.type === "stdio" && (s.sandbox_network === "on" ? "network in the sandbox" : "no network in the sandbox"),
    s.keys && Object.keys(s.keys).length > 0 && `keys ${Object.entries(s.keys).map(([t, a]) => `${t}: ${a}`).join(", ")}`,
  ].filter((x): x is string => typeof x === "string" && x !== "");
  return (
    <article className="provider-card mcp-server" aria-label={`MCP server ${s.name}`} data-testid="mcp-server">
      <div className="mcp-server-head">
        <strong>{s.name}</strong>
        <span className="mcp-badge">{s.type}</span>
        <span className={s.trusted ? "mcp-badge trusted" : "mcp-badge untrusted"}>{s.trusted ? "trusted" : "untrusted"}</span>
        <span className="muted">protocol {s.protocol}</span>
        {s.legacy && <span className="muted">(needs initialize)</span>}
        {s.sessions > 0 && <span className="muted">{s.sessions === 1 ? "1 run connected" : `${s.sessions} runs connected`}</span>}
        {s.disabled && <span className="mcp-badge">disabled</span>}
        {s.shared && (
          <span className="mcp-badge" title="One session serves every run">
            shared
          </span>
        )}
        <span className="spacer" />
        <button type="button" disabled={testing} onClick={() => void run()}>
          {testing ? "Testing…" : "Test connection"}
        </button>
        <button type="button" disabled={busy} onClick={() => void change(() => api.setMCPState(s.name, { disabled: !s.disabled }))}>
          {s.disabled ? "Enable" : "Disable"}
        </button>
        {s.trusted ? (
          <button type="button" disabled={busy} onClick={() => void change(() => api.setMCPState(s.name, { trusted: false }))}>
            Distrust
          </button>
        ) : (
          <button type="button" disabled={busy} onClick={() => setConfirm("trust")}>
            Trust…
          </button>
        )}
        <button type="button" disabled={busy || editing} onClick={() => setEditing(true)}>
          Edit
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => setConfirm("remove")}>
          Remove…
        </button>
      </div>
      {editing && (
        <AddServer
          editing={s}
          onDone={(list) => {
            setEditing(false);
            if (list) onServers(list);
          }}
        />
      )}
      {confirm === "trust" && (
        <div className="confirm-row" role="group" aria-label={`Trust ${s.name}`}>
          <span>
            Trust {s.name}: its tools' own annotations will decide their risk, so one that says it is read-only runs without
            asking in every mode.
          </span>
          <button type="button" className="primary" disabled={busy} onClick={() => void change(() => api.setMCPState(s.name, { trusted: true }))}>
            Trust {s.name}
          </button>
          <button type="button" onClick={() => setConfirm(undefined)}>
            Cancel
          </button>
        </div>
      )}
      {confirm === "remove" && (
        <div className="confirm-row" role="group" aria-label={`Remove ${s.name}`}>
          <span>Remove {s.name} from config.json? Agents that name its tools can no longer call them.</span>
          <button type="button" className="danger" disabled={busy} onClick={() => void change(() => api.removeMCPServer(s.name))}>
            Remove {s.name}
          </button>
          <button type="button" onClick={() => setConfirm(undefined)}>
            Cancel
          </button>
        </div>
      )}
      <code className="mcp-target">{target}</code>
      {given.length > 0 && <p className="muted mcp-given">{given.join("; ")}</p>}
      {s.status && (
        <p className={`mcp-status mcp-status-${s.status.state}`} data-testid="mcp-status">
          Last in a run: {s.status.state}
          {s.status.reason ? ` (${s.status.reason})` : ""} at {new Date(s.status.at).toLocaleTimeString()}
          {s.status.run ? `, in ${s.status.run}` : ""}
        </p>
      )}
      {s.log && (
        <details className="mcp-log">
          <summary>Its stderr (the end, across its sessions)</summary>
          <pre data-testid="mcp-log">{s.log}</pre>
        </details>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {test && <TestResult test={test} trusted={s.trusted} />}
    </article>
  );
}

function TestResult({ test, trusted }: { test: MCPTest; trusted: boolean }) {
  const riskWhy = trusted
    ? "From the server's annotations: the server is trusted"
    : "Untrusted server: its tools ask in every mode but auto, whatever their annotations claim";
  return (
    <div className="mcp-test" data-testid="mcp-test">
      {test.ok ? (
        <p className="test-result ok" role="status">
          Connected in {test.millis} ms, protocol {test.era}: {test.tools.length === 1 ? "1 tool" : `${test.tools.length} tools`}.
        </p>
      ) : (
        <p className="test-result fail" role="alert">
          {test.error}
        </p>
      )}
      {test.tools.length > 0 && (
        <table className="mcp-tools">
          <thead>
            <tr>
              <th>Tool</th>
              <th>Risk</th>
              <th>Annotations (the server's claims)</th>
              <th>Description</th>
            </tr>
          </thead>
          <tbody>
            {test.tools.map((t) => (
              <tr key={t.remote} data-testid="mcp-tool">
                <td>
                  <code>{t.name || t.remote}</code>
                  {t.problem && <div className="form-error">Not offered: {t.problem}</div>}
                </td>
                <td>
                  <span className={`risk risk-${t.risk}`} title={riskWhy}>
                    {t.risk}
                  </span>
                </td>
                <td>{hints(t).join(", ") || <span className="muted">none given</span>}</td>
                <td className="mcp-desc">{t.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {test.stderr && (
        <details className="mcp-stderr">
          <summary>The server's stderr (its end)</summary>
          <pre>{test.stderr}</pre>
        </details>
      )}
    </div>
  );
}

// hints names the annotations a tool declares, read with the
// specification's defaults (destructive and open-world unless said not).
function hints(t: MCPTool): string[] {
  const a = t.annotations;
  if (!a) return [];
  const out: string[] = [];
  if (a.readOnlyHint) out.push("read-only");
  else {
    if (a.destructiveHint !== false) out.push("destructive");
    if (a.idempotentHint) out.push("idempotent");
  }
  if (a.openWorldHint !== false) out.push("open world");
  return out;
}
