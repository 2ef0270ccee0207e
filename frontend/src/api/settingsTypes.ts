// Wire types of the settings API (providers, local model servers, the price
// table) and the whole agent definition the agent editor reads and writes.
// They mirror the Go wire types one to one, like types.ts, which re-exports
// them.

import type { Agent } from "./types";

// Settings is GET /api/v1/settings, and the answer of every settings PUT.
export type Settings = {
  config_file: string; // where settings are saved (config.json in the data directory, mode 0600)
  providers: ProviderSettings[];
  local_servers: LocalServer[]; // probed when asked (Ollama 11434, LM Studio 1234)
  prices: PriceEntry[];
};

// ProviderName is "openai" (also every OpenAI-compatible server) or "anthropic".
export type ProviderName = "openai" | "anthropic";

export type ProviderSettings = {
  name: ProviderName;
  label: string;
  base_url: string; // as saved or from the environment; "" is default_base_url
  model: string; // "" is default_model
  default_base_url: string;
  default_model: string;
  // Set when an environment variable fixes the value: it wins, and the
  // field cannot be changed from the UI.
  base_url_env?: string;
  model_env?: string;
  key: ProviderKey;
  active: boolean; // whether agents set to "auto" use this provider now
};

// ProviderKey says whether a key is set and where from; the key itself is
// never sent back, only a hint such as "sk-…wxyz".
export type ProviderKey = { set: boolean; source: "env" | "stored" | ""; env_var: string; hint?: string };

export type LocalServer = { base_url: string; found: boolean; models: string[] };

export type PriceSource = "default" | "config";

// PriceEntry is a model's price in US dollars per million tokens.
export type PriceEntry = {
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  cached_input_per_mtok?: number;
  source: PriceSource;
};

// PUT /api/v1/settings/providers/{name}: absent fields stay as they are; ""
// clears base_url or model; a non-empty api_key is stored; clear_key removes
// the stored key.
export type ProviderUpdate = { base_url?: string; model?: string; api_key?: string; clear_key?: boolean };

// POST /api/v1/settings/providers/{name}/test: the provider's models listed
// with the saved settings; ok false carries the reason.
export type ProviderTest = { ok: boolean; message: string; models?: string[]; latency_ms: number };

export type Price = { input_per_mtok: number; output_per_mtok: number; cached_input_per_mtok?: number };

// PUT /api/v1/settings/prices replaces the configured prices; the defaults
// stay underneath.
export type PricesUpdate = { prices: Record<string, Price> };

// The agent definition as the agents API sends and takes it: Agent with the
// fields the editor also needs (rules and budgets).

export type AgentProvider = "auto" | "openai" | "anthropic" | "script";

// Rule refines the agent's mode for the calls of tool (a name, or a glob of
// names: "*", "browser_*") whose key argument (a path, a command line, a
// host) matches the glob.
export type Rule = { effect: "allow" | "ask" | "deny"; tool: string; match?: string };

export type AgentDefinition = Omit<Agent, "provider"> & {
  provider: AgentProvider;
  rules?: Rule[];
  // Budgets; 0 or absent means no limit.
  max_tokens?: number;
  max_cost_usd?: number;
  max_wall_time?: string; // a Go duration: "30m", "2h"
  // The only hosts the agent's browser may visit (globs: "*.example.com");
  // absent allows any.
  browser_domains?: string[];
  // Send the screenshots the agent's tools take to the model as images;
  // only for a model that accepts images.
  send_images?: boolean;
};

export type AgentDefinitionInput = Omit<
  AgentDefinition,
  "id" | "created_at" | "updated_at" | "effective_provider" | "effective_model" | "demo"
>;
