import { useState } from "react";
import type { Limits } from "../../api/types";

type Field = "max_steps" | "max_tokens" | "max_cost_usd" | "max_wall_time_ms";

// fields are the budgets as a person types them: wall time in minutes,
// cost in dollars; toWire turns what was typed into the limit's unit.
const fields: { key: Field; label: string; unit: string; whole: boolean; toWire: (n: number) => number; fromWire: (n: number) => number }[] = [
  { key: "max_steps", label: "Steps", unit: "model calls", whole: true, toWire: (n) => n, fromWire: (n) => n },
  { key: "max_tokens", label: "Tokens", unit: "input + output", whole: true, toWire: (n) => n, fromWire: (n) => n },
  { key: "max_cost_usd", label: "Cost", unit: "US dollars", whole: false, toWire: (n) => n, fromWire: (n) => n },
  {
    key: "max_wall_time_ms",
    label: "Wall time",
    unit: "minutes in calls",
    whole: false,
    toWire: (n) => Math.round(n * 60_000),
    fromWire: (n) => n / 60_000,
  },
];

// suggested is what a field is prefilled with: twice the budget, rounded
// to read well (a suggestion only: the person says the new limit).
function suggested(f: (typeof fields)[number], limit: number): string {
  const v = f.fromWire(limit) * 2;
  return String(f.whole ? Math.ceil(v) : Number(v.toPrecision(4)));
}

// parseLimits checks what was typed against the run's budgets: each a
// positive number (whole for steps and tokens), none below its budget,
// at least one above it. It answers the limits to send or the errors by
// field.
export function parseLimits(
  current: Limits,
  typed: Partial<Record<Field, string>>,
): { limits?: Limits; errors: Partial<Record<Field, string>>; none?: string } {
  const errors: Partial<Record<Field, string>> = {};
  const limits: Limits = {};
  let raised = false;
  for (const f of fields) {
    const now = current[f.key];
    const text = typed[f.key]?.trim();
    if (!now || text === undefined) continue;
    if (text === "") {
      errors[f.key] = `Give the new ${f.label.toLowerCase()} limit`;
      continue;
    }
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0) {
      errors[f.key] = `${f.label} must be a number above 0`;
      continue;
    }
    if (f.whole && !Number.isInteger(n)) {
      errors[f.key] = `${f.label} must be a whole number`;
      continue;
    }
    const wire = f.toWire(n);
    if (wire < now) {
      errors[f.key] = `${f.label} cannot go below the budget of ${f.fromWire(now)}: raise it or leave it`;
      continue;
    }
    if (wire > now) raised = true;
    limits[f.key] = wire;
  }
  if (Object.keys(errors).length > 0) return { errors };
  if (!raised) return { errors, none: "Raise at least one budget above its limit to go on" };
  return { limits, errors };
}

type Props = {
  limits: Limits;
  disabled: boolean;
  title: string;
  onRaise: (limits: Limits) => Promise<unknown>;
};

// RaiseBudget asks for the new limits of a run that a budget paused, each
// budget the run has prefilled with twice its limit, and continues the run
// with them once they check out. Nothing is raised that the person did not
// see.
export function RaiseBudget({ limits, disabled, title, onRaise }: Props) {
  const set = fields.filter((f) => limits[f.key]);
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState<Partial<Record<Field, string>>>({});
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [none, setNone] = useState<string>();

  function start() {
    setTyped(Object.fromEntries(set.map((f) => [f.key, suggested(f, limits[f.key]!)])));
    setErrors({});
    setNone(undefined);
    setOpen(true);
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const r = parseLimits(limits, typed);
    setErrors(r.errors);
    setNone(r.none);
    if (!r.limits) return;
    const res = await onRaise(r.limits);
    if (res) setOpen(false);
  }

  if (!open) {
    return (
      <button type="button" className="primary" disabled={disabled} title={title} onClick={start}>
        Raise budget and continue
      </button>
    );
  }
  return (
    <form className="raise-budget" aria-label="Raise budget" onSubmit={(e) => void submit(e)} noValidate>
      {set.map((f) => (
        <label key={f.key} className="raise-field">
          <span>
            {f.label} <span className="muted">({f.unit}; now {f.fromWire(limits[f.key]!)})</span>
          </span>
          <input
            type="text"
            inputMode="decimal"
            aria-label={`New ${f.label.toLowerCase()} limit`}
            aria-invalid={!!errors[f.key]}
            value={typed[f.key] ?? ""}
            onChange={(e) => setTyped({ ...typed, [f.key]: e.target.value })}
          />
          {errors[f.key] && (
            <span className="form-error" role="alert">
              {errors[f.key]}
            </span>
          )}
        </label>
      ))}
      {none && (
        <p className="form-error" role="alert">
          {none}
        </p>
      )}
      <div className="banner-actions">
        <button type="submit" className="primary" disabled={disabled}>
          Continue with these limits
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
