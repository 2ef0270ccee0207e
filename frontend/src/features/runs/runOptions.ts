// What the New run form's Options fold overrides of the agent, as typed,
// and its translation into the start request. Each field is checked here
// so that a slip is named in the form; the server checks them again.

import type { StartRun } from "../../api/types";

export type RunOptions = {
  model: string;
  maxSteps: string;
  maxTokens: string;
  maxCostUSD: string;
  maxWallMinutes: string;
  breakBefore: string[];
};

export const noOptions: RunOptions = { model: "", maxSteps: "", maxTokens: "", maxCostUSD: "", maxWallMinutes: "", breakBefore: [] };

type Overrides = Pick<StartRun, "model" | "limits" | "break_before">;

// overrides turns the options into the request's fields, leaving out what
// was left empty (the agent's then applies), or says which field is wrong.
export function overrides(o: RunOptions): { ok: true; value: Overrides } | { ok: false; error: string } {
  const out: Overrides = {};
  const model = o.model.trim();
  if (model) {
    if (/\s/.test(model)) return { ok: false, error: "Model: a model name has no spaces" };
    out.model = model;
  }
  const limits: NonNullable<StartRun["limits"]> = {};
  const fields: [string, string, boolean, (n: number) => void][] = [
    ["Max steps", o.maxSteps, true, (n) => (limits.max_steps = n)],
    ["Max tokens", o.maxTokens, true, (n) => (limits.max_tokens = n)],
    ["Max cost (USD)", o.maxCostUSD, false, (n) => (limits.max_cost_usd = n)],
    ["Max wall time (minutes)", o.maxWallMinutes, false, (n) => (limits.max_wall_time_ms = Math.round(n * 60_000))],
  ];
  for (const [label, raw, whole, set] of fields) {
    if (raw.trim() === "") continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0 || (whole && !Number.isInteger(n))) {
      return { ok: false, error: `${label}: ${JSON.stringify(raw)} is not a ${whole ? "whole number" : "number"} above 0` };
    }
    set(n);
  }
  if (Object.keys(limits).length > 0) out.limits = limits;
  if (o.breakBefore.length > 0) out.break_before = o.breakBefore;
  return { ok: true, value: out };
}
