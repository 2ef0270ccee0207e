// Wire types of the settings API (providers, local model servers, the price
// table) and the whole agent definition the agent editor reads and writes,
// named from the generated schema; types.ts re-exports them.

import type { components } from "./schema";

type Schemas = components["schemas"];

// Settings is GET /api/v1/settings, and the answer of every settings PUT:
// where settings are saved (config.json in the data directory, mode 0600),
// the providers, the local model servers probed (Ollama 11434, LM Studio
// 1234) and the prices.
export type Settings = Schemas["SettingsView"];

// A provider's settings: base_url and model as saved or from the
// environment ("" is the default); base_url_env and model_env are set when
// an environment variable fixes the value (it wins, and the UI cannot
// change it); active: whether agents set to "auto" use this provider now.
export type ProviderSettings = Schemas["ProviderView"];

// ProviderName is "openai" (also every OpenAI-compatible server) or "anthropic".
export type ProviderName = ProviderSettings["name"];

// ProviderKey says whether a key is set and where from; the key itself is
// never sent back, only a hint such as "sk-…wxyz".
export type ProviderKey = Schemas["KeyView"];

export type LocalServer = Schemas["LocalServer"];

// PriceEntry is a model's price in US dollars per million tokens.
export type PriceEntry = Schemas["PriceView"];
export type PriceSource = PriceEntry["source"];

// PUT /api/v1/settings/providers/{name}: absent fields stay as they are; ""
// clears base_url or model; a non-empty api_key is stored; clear_key removes
// the stored key.
export type ProviderUpdate = Schemas["ProviderInput"];

// POST /api/v1/settings/providers/{name}/test: the provider's models listed
// with the saved settings; ok false carries the reason.
export type ProviderTest = Schemas["TestResult"];

export type Price = Schemas["PriceInput"];

// PUT /api/v1/settings/prices replaces the configured prices; the defaults
// stay underneath.
export type PricesUpdate = Schemas["PricesInput"];

// Rule refines the agent's mode for the calls of tool (a name, or a glob of
// names: "*", "browser_*") whose key argument (a path, a command line, a
// host) matches the glob.
export type Rule = Schemas["PolicyRule"];

// The agent definition as the agents API sends and takes it, rules and
// budgets included: Agent itself.
export type AgentDefinition = Schemas["Agent"];
export type AgentDefinitionInput = Schemas["AgentInput"];
export type AgentProvider = AgentDefinition["provider"];

// GET /api/v1/mcp/servers: config.json's MCP servers, with the names (never
// the values) of the env variables and headers each is given.
export type MCPServer = Schemas["ServerView"];

// POST /api/v1/mcp/servers/{name}/test: what connecting as a run would
// found: the era, the tools with the server's annotations and the risk
// Steward gives them (annotations count only for a trusted server), or the
// error, with the end of a stdio server's stderr either way.
export type MCPTest = Schemas["ConnectionTest"];
export type MCPTool = Schemas["ToolView"];
