// The agent editor's form state and its translation to and from the wire.
// Numbers are held as the text typed, so a half-typed value survives a
// failed save; the payload is built only when the form is sent.

import type {
  AgentDefinition,
  AgentDefinitionInput,
  AgentProvider,
  PermissionMode,
  Rule,
  SandboxMode,
  SandboxNetwork,
  ToolSpec,
} from "../../api/types";

export type RuleRow = { key: number; effect: Rule["effect"]; tool: string; match: string };

export type AgentForm = {
  name: string;
  description: string;
  provider: AgentProvider;
  model: string;
  base_url: string;
  // Screenshots go to the model as images (a model that accepts them).
  send_images: boolean;
  // The workspace's approved .mcp.json servers are offered too.
  project_servers: boolean;
  script: string;
  system_prompt: string;
  tools: string[];
  mode: PermissionMode;
  rules: RuleRow[];
  max_steps: string;
  max_tokens: string;
  max_cost_usd: string;
  max_wall_time: string;
  break_before: string[];
  approval_timeout: string;
  approval_default: "" | "deny" | "approve";
  // One host (glob) per line or separated by commas or spaces.
  browser_domains: string;
  // How the agent's commands are confined, and whether they have the network.
  sandbox: SandboxMode;
  sandbox_network: SandboxNetwork;
};

// The fields a message can name; the editor marks the one that is wrong.
export type FieldName = keyof Omit<AgentForm, "rules"> | `rules[${number}]` | "rules";

// What the server starts an agent's max_steps at when none is given.
export const defaultMaxSteps = 50;

let nextKey = 1;

export function ruleRow(r: Partial<Rule> = {}): RuleRow {
  return { key: nextKey++, effect: r.effect ?? "ask", tool: r.tool ?? "*", match: r.match ?? "" };
}

// newForm is a new agent: automatic provider, ask mode, and the read tools of
// the catalog, which run without asking in every mode.
export function newForm(catalog: readonly ToolSpec[]): AgentForm {
  return {
    name: "",
    description: "",
    provider: "auto",
    model: "",
    base_url: "",
    send_images: false,
    project_servers: false,
    script: "",
    system_prompt: "",
    tools: catalog.filter((t) => t.risk === "read").map((t) => t.name),
    mode: "ask",
    rules: [],
    max_steps: String(defaultMaxSteps),
    max_tokens: "",
    max_cost_usd: "",
    max_wall_time: "",
    break_before: [],
    approval_timeout: "",
    approval_default: "",
    browser_domains: "",
    sandbox: "auto",
    sandbox_network: "off",
  };
}

export function formOf(a: AgentDefinition): AgentForm {
  return {
    name: a.name,
    description: a.description ?? "",
    provider: a.provider,
    model: a.model ?? "",
    base_url: a.base_url ?? "",
    send_images: !!a.send_images,
    project_servers: !!a.project_servers,
    script: a.script ?? "",
    system_prompt: a.system_prompt ?? "",
    tools: [...(a.tools ?? [])],
    mode: a.mode,
    rules: (a.rules ?? []).map(ruleRow),
    max_steps: a.max_steps ? String(a.max_steps) : "",
    max_tokens: a.max_tokens ? String(a.max_tokens) : "",
    max_cost_usd: a.max_cost_usd ? String(a.max_cost_usd) : "",
    max_wall_time: a.max_wall_time ?? "",
    break_before: [...(a.break_before ?? [])],
    approval_timeout: a.approval_timeout ?? "",
    approval_default: a.approval_default ?? "",
    browser_domains: (a.browser_domains ?? []).join("\n"),
    sandbox: a.sandbox ?? "auto",
    sandbox_network: a.sandbox_network ?? "off",
  };
}

export type Built = { ok: true; input: AgentDefinitionInput } | { ok: false; field: FieldName; message: string };

// toInput builds the request body. It checks only what JSON cannot carry (a
// number that is not one); the server validates the rest and names the field.
// Empty optional fields are left out: the server reads absent as "none".
export function toInput(f: AgentForm): Built {
  const whole = (field: "max_steps" | "max_tokens", v: string): number | string => {
    const s = v.trim();
    if (s === "") return 0;
    return /^\d+$/.test(s) ? Number(s) : `${field} "${s}" must be a whole number, 0 or more`;
  };
  const steps = whole("max_steps", f.max_steps);
  if (typeof steps === "string") return { ok: false, field: "max_steps", message: steps };
  const tokens = whole("max_tokens", f.max_tokens);
  if (typeof tokens === "string") return { ok: false, field: "max_tokens", message: tokens };
  const costText = f.max_cost_usd.trim();
  const cost = costText === "" ? 0 : Number(costText);
  if (!Number.isFinite(cost) || cost < 0) {
    return { ok: false, field: "max_cost_usd", message: `max_cost_usd "${costText}" must be an amount in US dollars, 0 or more` };
  }

  const usesModel = f.provider !== "script";
  const input: AgentDefinitionInput = {
    name: f.name.trim(),
    description: f.description,
    provider: f.provider,
    model: usesModel ? f.model.trim() : "",
    system_prompt: f.system_prompt,
    tools: f.tools,
    mode: f.mode,
    max_steps: steps,
    sandbox: f.sandbox,
    sandbox_network: f.sandbox_network,
  };
  if (usesModel && f.base_url.trim()) input.base_url = f.base_url.trim();
  if (usesModel && f.send_images) input.send_images = true;
  if (f.project_servers) input.project_servers = true;
  if (f.script.trim()) input.script = f.script.trim();
  if (f.rules.length > 0) {
    input.rules = f.rules.map((r) => (r.match.trim() ? { effect: r.effect, tool: r.tool, match: r.match.trim() } : { effect: r.effect, tool: r.tool }));
  }
  if (tokens > 0) input.max_tokens = tokens;
  if (cost > 0) input.max_cost_usd = cost;
  if (f.max_wall_time.trim()) input.max_wall_time = f.max_wall_time.trim();
  // Only tools the agent has can be paused before.
  const breaks = f.break_before.filter((t) => f.tools.includes(t));
  if (breaks.length > 0) input.break_before = breaks;
  const domains = domainList(f.browser_domains);
  if (domains.length > 0) input.browser_domains = domains;
  if (f.approval_timeout.trim()) {
    input.approval_timeout = f.approval_timeout.trim();
    if (f.approval_default) input.approval_default = f.approval_default;
  }
  return { ok: true, input };
}

const fields: readonly FieldName[] = [
  "name",
  "description",
  "provider",
  "model",
  "base_url",
  "send_images",
  "project_servers",
  "script",
  "system_prompt",
  "tools",
  "mode",
  "max_steps",
  "max_tokens",
  "max_cost_usd",
  "max_wall_time",
  "break_before",
  "approval_timeout",
  "approval_default",
  "browser_domains",
  "sandbox",
  "sandbox_network",
];

// domainList splits what was typed into hosts: by lines, commas or spaces.
export function domainList(text: string): string[] {
  return text.split(/[\s,]+/).filter((d) => d !== "");
}

// fieldOf finds the field an error message of the server names, as in
// `invalid agent: max_wall_time "x" must be a positive duration` or
// `invalid agent: rules[2]: tool is empty`.
export function fieldOf(message: string): FieldName | undefined {
  const m = message.replace(/^invalid agent:\s*/, "");
  const rule = /^rules\[(\d+)\]/.exec(m);
  if (rule) return `rules[${Number(rule[1])}]`;
  if (/^\d+ rules\b/.test(m)) return "rules";
  // The longest name first: max_tokens before a shorter name it starts with.
  return [...fields].sort((a, b) => b.length - a.length).find((f) => m.startsWith(f + " ") || m.startsWith(f + ":"));
}
