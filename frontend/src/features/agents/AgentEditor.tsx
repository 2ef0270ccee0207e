import { useCallback, useEffect, useId, useState, type FormEvent, type ReactNode } from "react";
import type { AgentDefinition, AgentProvider, MCPServer, PermissionMode, SandboxMode, SandboxNetwork, ToolSpec } from "../../api/types";
import { useApp, useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";
import { fieldOf, formOf, newForm, toInput, type AgentForm, type FieldName } from "./form";
import { RulesEditor } from "./RulesEditor";
import { ToolPicker } from "./ToolPicker";

type Props = {
  id?: string; // the agent to edit; absent for a new one
  title: string;
  onSaved: (a: AgentDefinition) => void | Promise<void>;
  onCancel: () => void;
};

// AgentEditor reads the tool catalog (and the agent, fresh from the server,
// when one is edited), then shows the form.
export function AgentEditor({ id, title, onSaved, onCancel }: Props) {
  const { api } = useServices();
  const [loaded, setLoaded] = useState<{ catalog: ToolSpec[]; mcp: MCPServer[]; form: AgentForm }>();
  const [error, setError] = useState<string>();

  const load = useCallback(async () => {
    setError(undefined);
    try {
      // A server without MCP (or an older one) lists no MCP servers.
      const mcp = api.mcpServers().catch((): MCPServer[] => []);
      const [catalog, agent, servers] = await Promise.all([api.tools(), id ? api.agent(id) : Promise.resolve(undefined), mcp]);
      setLoaded({ catalog, mcp: servers, form: agent ? formOf(agent) : newForm(catalog) });
    } catch (err) {
      setError(errorMessage(err));
    }
  }, [api, id]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="page agent-editor" aria-label={title} data-testid="agent-editor">
      <header className="page-head">
        <h1>{title}</h1>
      </header>
      {loaded ? (
        <EditorForm id={id} catalog={loaded.catalog} mcp={loaded.mcp} initial={loaded.form} onSaved={onSaved} onCancel={onCancel} />
      ) : error ? (
        <>
          <p className="form-error" role="alert">
            Could not load {id ? "the agent" : "the tool catalog"}: {error}
          </p>
          <div className="form-actions">
            <button type="button" onClick={() => void load()}>
              Try again
            </button>
            <button type="button" onClick={onCancel}>
              Back to the agents
            </button>
          </div>
        </>
      ) : (
        <p className="muted">Loading…</p>
      )}
    </section>
  );
}

const providers: { value: AgentProvider; label: string; note: string }[] = [
  {
    value: "auto",
    label: "auto",
    note: "The provider marked active in Settings: OpenAI or a compatible server when configured, else Anthropic when its key is set, else a local server found, else the demo script.",
  },
  { value: "openai", label: "openai", note: "OpenAI, or any compatible server (Ollama, llama.cpp, vLLM, LM Studio, OpenRouter) by its base URL." },
  { value: "anthropic", label: "anthropic", note: "Anthropic's API; needs its key (Settings → Providers)." },
  { value: "script", label: "script", note: "Plays a scripted conversation and calls no model: the demo, or a script file for tests." },
];

// What each permission mode lets run without asking.
export const modes: { value: PermissionMode; label: string; note: string }[] = [
  { value: "ask", label: "ask: reads run, everything else asks", note: "Read tools run; every other call waits for your approval." },
  {
    value: "edits",
    label: "edits: reads and workspace writes run",
    note: "Read tools and changes to workspace files run; commands, network and destructive tools ask.",
  },
  { value: "plan", label: "plan: read-only tools only", note: "Only read tools are offered to the model: it can look and plan, not change anything." },
  {
    value: "auto",
    label: "auto: everything runs (still confined)",
    note: "Every call runs without asking, still confined to the workspace. Rules below can still make a call ask or deny it.",
  },
];

// What each sandbox setting does to the agent's commands.
export const sandboxModes: { value: SandboxMode; label: string; note: string }[] = [
  {
    value: "auto",
    label: "auto: sandboxed where it works",
    note: "Commands run in the sandbox (the workspace writable, the rest read-only, your credentials and Steward's data hidden). Where it cannot work, every command asks first, whatever the mode.",
  },
  { value: "on", label: "on: sandboxed, or refused", note: "Commands run in the sandbox; where it cannot work, they are refused." },
  {
    value: "off",
    label: "off: not sandboxed (a risk)",
    note: "Commands run as Steward's user and can read and change what it can: your files, your keys, Steward's data, the network. Only the mode and your approvals stand in the way.",
  },
];

type FormProps = {
  id?: string;
  catalog: ToolSpec[];
  mcp: MCPServer[];
  initial: AgentForm;
  onSaved: (a: AgentDefinition) => void | Promise<void>;
  onCancel: () => void;
};

// EditorForm is the agent's definition as a form. A failed save keeps what
// was typed and shows the server's message next to the Save button, marking
// the field it names.
function EditorForm({ id, catalog, mcp, initial, onSaved, onCancel }: FormProps) {
  const { api } = useServices();
  const [f, setF] = useState(initial);
  const [error, setError] = useState<{ message: string; field?: FieldName }>();
  const [saving, setSaving] = useState(false);
  const uid = useId();
  const fid = (name: string) => `${uid}-${name}`;
  const errorId = fid("error");

  const set = <K extends keyof AgentForm>(k: K, v: AgentForm[K]) => setF((prev) => ({ ...prev, [k]: v }));

  // Props that mark a field as the one the last error named.
  const mark = (name: FieldName) =>
    error?.field === name ? { "aria-invalid": true as const, "aria-describedby": errorId } : {};

  async function submit(e: FormEvent) {
    e.preventDefault();
    const built = toInput(f);
    if (!built.ok) {
      setError({ message: built.message, field: built.field });
      focus(fid(built.field));
      return;
    }
    setSaving(true);
    setError(undefined);
    try {
      const saved = id ? await api.updateAgent(id, built.input) : await api.createAgent(built.input);
      await onSaved(saved);
    } catch (err) {
      const message = errorMessage(err);
      const field = fieldOf(message);
      setError({ message, field });
      if (field) focus(fid(field.startsWith("rules[") ? `rule-${/\d+/.exec(field)?.[0]}` : field));
      setSaving(false);
    }
  }

  const sandboxInfo = useApp((s) => s.info?.sandbox);
  const sandbox = sandboxModes.find((m) => m.value === f.sandbox);
  const provider = providers.find((p) => p.value === f.provider);
  const mode = modes.find((m) => m.value === f.mode);
  const ruleIndex = error?.field?.startsWith("rules[") ? Number(/\d+/.exec(error.field)?.[0]) : undefined;
  const modelPlaceholder =
    f.provider === "auto" ? "the active provider's model" : f.provider === "anthropic" ? "Anthropic's default model" : "the provider's default model";

  return (
    <form className="agent-form" onSubmit={submit} noValidate aria-describedby={error ? errorId : undefined}>
      <Fieldset legend="Agent">
        <Field label="Name" htmlFor={fid("name")} hint="Letters, digits, '.', '_' or '-'; runs name their agent by it.">
          <input id={fid("name")} type="text" value={f.name} spellCheck={false} onChange={(e) => set("name", e.target.value)} {...mark("name")} />
        </Field>
        <Field label="Description" htmlFor={fid("description")}>
          <input id={fid("description")} type="text" value={f.description} onChange={(e) => set("description", e.target.value)} {...mark("description")} />
        </Field>
      </Fieldset>

      <Fieldset legend="Model">
        <Field label="Provider" htmlFor={fid("provider")} hint={provider?.note}>
          <select id={fid("provider")} value={f.provider} onChange={(e) => set("provider", e.target.value as AgentProvider)} {...mark("provider")}>
            {providers.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        </Field>
        {f.provider !== "script" && (
          <div className="field-row">
            <Field label="Model" htmlFor={fid("model")}>
              <input id={fid("model")} type="text" value={f.model} placeholder={modelPlaceholder} spellCheck={false} onChange={(e) => set("model", e.target.value)} {...mark("model")} />
            </Field>
            <Field label="Base URL" htmlFor={fid("base_url")}>
              <input
                id={fid("base_url")}
                type="text"
                inputMode="url"
                value={f.base_url}
                placeholder="the provider's (Settings → Providers)"
                spellCheck={false}
                onChange={(e) => set("base_url", e.target.value)}
                {...mark("base_url")}
              />
            </Field>
          </div>
        )}
        {f.provider !== "script" && (
          <div className="field">
            <label className="check-label">
              <input id={fid("send_images")} type="checkbox" checked={f.send_images} onChange={(e) => set("send_images", e.target.checked)} {...mark("send_images")} />
              Send screenshots to the model as images
            </label>
            <p className="hint muted">
              Only for models that accept images (GPT-4o and later, Claude 3 and later, llava…). Off: the model gets a description and a
              reference.
            </p>
          </div>
        )}
        {(f.provider === "script" || f.provider === "auto") && (
          <Field
            label="Script"
            htmlFor={fid("script")}
            hint={f.provider === "auto" ? "Played when no model is configured: demo, or the path of a script file." : "demo, or the path of a script file."}
          >
            <input id={fid("script")} type="text" value={f.script} placeholder="demo" spellCheck={false} onChange={(e) => set("script", e.target.value)} {...mark("script")} />
          </Field>
        )}
      </Fieldset>

      <Fieldset legend="System prompt">
        <Field label="System prompt" htmlFor={fid("system_prompt")} hideLabel>
          <textarea
            id={fid("system_prompt")}
            rows={6}
            value={f.system_prompt}
            placeholder="Who the agent is, how it works, when it stops."
            onChange={(e) => set("system_prompt", e.target.value)}
            {...mark("system_prompt")}
          />
        </Field>
      </Fieldset>

      <Fieldset legend="Tools">
        <ToolPicker
          catalog={catalog}
          mcp={mcp}
          selected={f.tools}
          invalid={error?.field === "tools"}
          onChange={(tools) => setF((prev) => ({ ...prev, tools, break_before: prev.break_before.filter((t) => tools.includes(t)) }))}
        />
        <div className="field">
          <label className="check-label">
            <input
              id={fid("project_servers")}
              type="checkbox"
              checked={f.project_servers}
              onChange={(e) => set("project_servers", e.target.checked)}
              {...mark("project_servers")}
            />
            Project MCP servers: those of the workspace's .mcp.json
          </label>
          <p className="hint muted">
            Offered only once you approve the file in that workspace (New run shows it), and again after it changes. Their tools are
            never trusted, and a server named like one of yours is not offered.
          </p>
        </div>
      </Fieldset>

      <Fieldset legend="Permissions">
        <Field label="Mode" htmlFor={fid("mode")} hint={mode?.note}>
          <select id={fid("mode")} value={f.mode} onChange={(e) => set("mode", e.target.value as PermissionMode)} {...mark("mode")}>
            {modes.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
        </Field>
        <div className="field">
          <span>Rules</span>
          <p className="hint muted">
            A rule decides over the mode for the calls it matches. Match is a glob on the tool's key argument (a path, a command line, a
            host; ** is any depth); empty matches every call. Deny beats ask beats allow.
          </p>
          <RulesEditor rows={f.rules} catalog={catalog} onChange={(rules) => set("rules", rules)} invalidRow={ruleIndex} errorId={errorId} idPrefix={uid} />
        </div>
        <div className="field-row">
          <Field label="Command sandbox" htmlFor={fid("sandbox")} hint={sandbox?.note}>
            <select id={fid("sandbox")} value={f.sandbox} onChange={(e) => set("sandbox", e.target.value as SandboxMode)} {...mark("sandbox")}>
              {sandboxModes.map((m) => (
                <option key={m.value} value={m.value}>
                  {m.label}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label="Network for commands"
            htmlFor={fid("sandbox_network")}
            hint="Off: sandboxed commands reach neither the internet nor servers on this machine. On: they reach both."
          >
            <select
              id={fid("sandbox_network")}
              value={f.sandbox_network}
              disabled={f.sandbox === "off"}
              onChange={(e) => set("sandbox_network", e.target.value as SandboxNetwork)}
              {...mark("sandbox_network")}
            >
              <option value="off">off</option>
              <option value="on">on</option>
            </select>
          </Field>
        </div>
        {sandboxInfo && !sandboxInfo.available && (
          <p className="sandbox-unavailable" role="note" data-testid="sandbox-unavailable">
            The sandbox cannot work on this machine{sandboxInfo.reason ? `: ${sandboxInfo.reason}` : ""}. With auto every command asks
            first; with on commands are refused.
          </p>
        )}
      </Fieldset>

      <Fieldset legend="Limits">
        <p className="hint muted">Reaching a limit pauses the run; you raise it or stop the run. Empty means no limit.</p>
        <div className="field-row">
          <Field label="Max steps" htmlFor={fid("max_steps")}>
            <input id={fid("max_steps")} type="text" inputMode="numeric" value={f.max_steps} placeholder="50" onChange={(e) => set("max_steps", e.target.value)} {...mark("max_steps")} />
          </Field>
          <Field label="Max tokens" htmlFor={fid("max_tokens")}>
            <input id={fid("max_tokens")} type="text" inputMode="numeric" value={f.max_tokens} placeholder="no limit" onChange={(e) => set("max_tokens", e.target.value)} {...mark("max_tokens")} />
          </Field>
          <Field label="Max cost (USD)" htmlFor={fid("max_cost_usd")}>
            <input id={fid("max_cost_usd")} type="text" inputMode="decimal" value={f.max_cost_usd} placeholder="no limit" onChange={(e) => set("max_cost_usd", e.target.value)} {...mark("max_cost_usd")} />
          </Field>
          <Field label="Max wall time" htmlFor={fid("max_wall_time")}>
            <input id={fid("max_wall_time")} type="text" value={f.max_wall_time} placeholder="e.g. 30m, 2h" spellCheck={false} onChange={(e) => set("max_wall_time", e.target.value)} {...mark("max_wall_time")} />
          </Field>
        </div>
      </Fieldset>

      <Fieldset legend="Pauses and approvals">
        <div className="field">
          <span id={fid("break_before")}>Pause before</span>
          <p className="hint muted">The run pauses before each call of these tools, like a breakpoint, and shows what comes next.</p>
          {f.tools.length === 0 ? (
            <p className="empty">Choose the agent's tools first.</p>
          ) : (
            <ul className="break-before" role="group" aria-labelledby={fid("break_before")}>
              {f.tools.map((t) => (
                <li key={t}>
                  <label>
                    <input
                      type="checkbox"
                      aria-label={`Pause before ${t}`}
                      checked={f.break_before.includes(t)}
                      onChange={(e) => set("break_before", e.target.checked ? [...f.break_before, t] : f.break_before.filter((x) => x !== t))}
                    />
                    <code>{t}</code>
                  </label>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div className="field-row">
          <Field label="Approval timeout" htmlFor={fid("approval_timeout")} hint="How long an approval or question waits for a person; empty waits for ever.">
            <input
              id={fid("approval_timeout")}
              type="text"
              value={f.approval_timeout}
              placeholder="e.g. 5m"
              spellCheck={false}
              onChange={(e) => set("approval_timeout", e.target.value)}
              {...mark("approval_timeout")}
            />
          </Field>
          <Field label="When nobody answers" htmlFor={fid("approval_default")} hint="Taken when the timeout passes; a question is declined.">
            <select
              id={fid("approval_default")}
              value={f.approval_default}
              disabled={!f.approval_timeout.trim()}
              onChange={(e) => set("approval_default", e.target.value as AgentForm["approval_default"])}
              {...mark("approval_default")}
            >
              <option value="">deny (the default)</option>
              <option value="deny">deny</option>
              <option value="approve">approve</option>
            </select>
          </Field>
        </div>
      </Fieldset>

      <Fieldset legend="Browser">
        <Field
          label="Allowed domains"
          htmlFor={fid("browser_domains")}
          hint="The only hosts the browser tools may visit, one per line (*.example.com covers its subdomains). Navigation elsewhere, by a redirect or a click too, is refused. Empty allows any host."
        >
          <textarea
            id={fid("browser_domains")}
            rows={3}
            value={f.browser_domains}
            placeholder={"example.com\n*.example.com"}
            spellCheck={false}
            onChange={(e) => set("browser_domains", e.target.value)}
            {...mark("browser_domains")}
          />
        </Field>
      </Fieldset>

      {/* Stays in view at the bottom, with the error of the last save. */}
      <div className="agent-actions">
        {error && (
          <p className="form-error" role="alert" id={errorId} data-testid="agent-error">
            {error.message}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="primary" data-testid="agent-save" disabled={saving}>
            {id ? "Save agent" : "Create agent"}
          </button>
          <button type="button" onClick={onCancel} disabled={saving}>
            Cancel
          </button>
          {saving && <span className="muted">Saving…</span>}
        </div>
      </div>
    </form>
  );
}

function Fieldset({ legend, children }: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="agent-fieldset">
      <legend>{legend}</legend>
      {children}
    </fieldset>
  );
}

function Field({ label, htmlFor, hint, hideLabel, children }: { label: string; htmlFor: string; hint?: string; hideLabel?: boolean; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={htmlFor} className={hideLabel ? "visually-hidden" : undefined}>
        {label}
      </label>
      {children}
      {hint && <p className="hint muted">{hint}</p>}
    </div>
  );
}

// focus moves to the field an error names, once React has shown the error.
function focus(id: string) {
  requestAnimationFrame(() => document.getElementById(id)?.focus());
}
