// The form of an MCP elicitation, read from the server's requestedSchema,
// and what a person typed into it: checked and turned into the content the
// server gets. Pure: ElicitationCard renders what this returns.
//
// Hand-written, not rjsf: @rjsf/core + @rjsf/utils + @rjsf/validator-ajv8
// (6.11.1) add 126.2 kB gzip to `npx vite build` (the sum of its gzip
// column: 206.0 kB without them, 332.2 kB with one <Form> using them; their
// vendor chunk alone is 126.7 kB), twice the app's own code, for schemas
// MCP keeps flat on purpose (an object of primitive properties) so that a
// client can render them with a few inputs. This file and ElicitationCard
// add 4.2 kB gzip (the app's chunk 64.0 to 68.0 kB, its CSS 10.35 to 10.47).

// Field is one property of the form, as it is rendered.
export type Field = {
  name: string;
  label: string;
  help?: string;
  required: boolean;
} & (
  | { kind: "string"; format?: StringFormat; minLength?: number; maxLength?: number; default?: string }
  | { kind: "number"; integer: boolean; minimum?: number; maximum?: number; default?: number }
  | { kind: "boolean"; default?: boolean }
  | { kind: "select"; options: Option[]; default?: string }
  | { kind: "multi"; options: Option[]; minItems?: number; maxItems?: number; default?: string[] }
);

export type StringFormat = "email" | "uri" | "date" | "date-time";
export type Option = { value: string; label: string };

// ElicitationForm is a schema read: its fields, or why it cannot be shown.
export type ElicitationForm = { fields: Field[] } | { unsupported: string };

// Values are what the inputs hold: text for strings and numbers (checked
// and converted on submit), a boolean for a checkbox, the chosen values of
// a multi-select.
export type Values = Record<string, string | boolean | string[]>;

type Schema = Record<string, unknown>;

const formats: readonly string[] = ["email", "uri", "date", "date-time"];

// readForm reads a requestedSchema. A schema that is no object of the
// primitive properties MCP allows is unsupported, with the reason.
export function readForm(schema: unknown): ElicitationForm {
  if (schema === undefined || schema === null) return { fields: [] };
  if (!isObject(schema) || (schema["type"] !== undefined && schema["type"] !== "object")) {
    return { unsupported: "the form is not an object of fields" };
  }
  const props = schema["properties"] ?? {};
  if (!isObject(props)) return { unsupported: "the form's properties are not a list of fields" };
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"].filter((r) => typeof r === "string") : []);
  const fields: Field[] = [];
  for (const [name, p] of Object.entries(props)) {
    const f = isObject(p) ? readField(name, p, required.has(name)) : undefined;
    if (!f) return { unsupported: `field "${name}" is of a kind this form cannot show` };
    fields.push(f);
  }
  return { fields };
}

export function readField(name: string, p: Schema, required: boolean): Field | undefined {
  const base = { name, label: text(p["title"]) || name, help: text(p["description"]) || undefined, required };
  const type = p["type"];
  const options = optionsOf(p);
  // Options this form cannot offer (numbers, objects) are not to be typed in as text instead.
  if (!options && ("enum" in p || "oneOf" in p || "anyOf" in p)) return undefined;
  if (options && (type === undefined || type === "string")) {
    const d = p["default"];
    return { ...base, kind: "select", options, default: typeof d === "string" && options.some((o) => o.value === d) ? d : undefined };
  }
  switch (type) {
    case "string": {
      const format = p["format"];
      return {
        ...base,
        kind: "string",
        // An unknown format is an annotation only: the field is plain text.
        format: typeof format === "string" && formats.includes(format) ? (format as StringFormat) : undefined,
        minLength: count(p["minLength"]),
        maxLength: count(p["maxLength"]),
        default: typeof p["default"] === "string" ? p["default"] : undefined,
      };
    }
    case "number":
    case "integer":
      return {
        ...base,
        kind: "number",
        integer: type === "integer",
        minimum: finite(p["minimum"]),
        maximum: finite(p["maximum"]),
        default: finite(p["default"]),
      };
    case "boolean":
      return { ...base, kind: "boolean", default: typeof p["default"] === "boolean" ? p["default"] : undefined };
    case "array": {
      const items = p["items"];
      const opts = isObject(items) && (items["type"] === undefined || items["type"] === "string") ? optionsOf(items) : undefined;
      if (!opts) return undefined;
      const d = Array.isArray(p["default"]) ? p["default"].filter((v): v is string => opts.some((o) => o.value === v)) : undefined;
      return { ...base, kind: "multi", options: opts, minItems: count(p["minItems"]), maxItems: count(p["maxItems"]), default: d };
    }
    default:
      return undefined;
  }
}

// optionsOf reads an enum's options: `enum` (with the legacy `enumNames`
// as their titles), or `oneOf` / `anyOf` of `{const, title}`.
function optionsOf(p: Schema): Option[] | undefined {
  const e = p["enum"];
  if (Array.isArray(e)) {
    if (e.length === 0 || !e.every((v) => typeof v === "string")) return undefined;
    const names = Array.isArray(p["enumNames"]) ? p["enumNames"] : [];
    return e.map((v: string, i) => ({ value: v, label: text(names[i]) || v }));
  }
  const list = p["oneOf"] ?? p["anyOf"];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const out: Option[] = [];
  for (const o of list) {
    if (!isObject(o) || typeof o["const"] !== "string") return undefined;
    out.push({ value: o["const"], label: text(o["title"]) || o["const"] });
  }
  return out;
}

// initialValues are the inputs as the form opens: the defaults filled in.
export function initialValues(fields: readonly Field[]): Values {
  const v: Values = {};
  for (const f of fields) {
    switch (f.kind) {
      case "boolean":
        v[f.name] = f.default ?? false;
        break;
      case "multi":
        v[f.name] = f.default ?? [];
        break;
      case "number":
        v[f.name] = f.default === undefined ? "" : String(f.default);
        break;
      default:
        v[f.name] = f.default ?? "";
    }
  }
  return v;
}

// checkForm returns the content to send, or a message for each field that is wrong.
export function checkForm(
  fields: readonly Field[],
  values: Values,
): { content: Record<string, unknown> } | { errors: Record<string, string> } {
  const content: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const r = checkField(f, values[f.name]);
    if ("error" in r) errors[f.name] = r.error;
    else if (r.value !== undefined) content[f.name] = r.value;
  }
  return Object.keys(errors).length > 0 ? { errors } : { content };
}

export type Checked = { value: unknown } | { error: string };

export function checkField(f: Field, raw: Values[string] | undefined): Checked {
  switch (f.kind) {
    case "boolean":
      // A checkbox always says yes or no.
      return { value: raw === true };
    case "multi": {
      const chosen = Array.isArray(raw) ? raw : [];
      if (chosen.length === 0 && !f.required) return { value: undefined };
      const min = f.minItems ?? (f.required ? 1 : 0);
      if (chosen.length < min) return { error: min === 1 ? "Choose at least one." : `Choose at least ${min}.` };
      if (f.maxItems !== undefined && chosen.length > f.maxItems) return { error: `Choose at most ${f.maxItems}.` };
      // In the order the server listed them, whatever order they were ticked in.
      return { value: f.options.map((o) => o.value).filter((v) => chosen.includes(v)) };
    }
    default: {
      const s = typeof raw === "string" ? raw : "";
      if (s === "") return f.required ? { error: f.kind === "select" ? "Choose one." : "Required." } : { value: undefined };
      if (f.kind === "select") return f.options.some((o) => o.value === s) ? { value: s } : { error: "Choose one of the options." };
      if (f.kind === "number") return checkNumber(f, s.trim());
      return checkString(f, s);
    }
  }
}

function checkNumber(f: Extract<Field, { kind: "number" }>, s: string): Checked {
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return { error: f.integer ? "Enter a whole number." : "Enter a number." };
  const n = Number(s);
  if (!Number.isFinite(n)) return { error: "Enter a number." };
  if (f.integer && !Number.isInteger(n)) return { error: "Enter a whole number." };
  if (f.minimum !== undefined && n < f.minimum) return { error: `Must be at least ${f.minimum}.` };
  if (f.maximum !== undefined && n > f.maximum) return { error: `Must be at most ${f.maximum}.` };
  return { value: n };
}

function checkString(f: Extract<Field, { kind: "string" }>, s: string): Checked {
  // Lengths in characters as JSON Schema counts them (code points), not UTF-16 units.
  const length = [...s].length;
  if (f.minLength !== undefined && length < f.minLength) return { error: `At least ${plural(f.minLength, "character")}.` };
  if (f.maxLength !== undefined && length > f.maxLength) return { error: `At most ${plural(f.maxLength, "character")}.` };
  switch (f.format) {
    case "email":
      return /^[^\s@]+@[^\s@]+$/.test(s) ? { value: s } : { error: "Enter an email address, like name@example.com." };
    case "uri":
      return isUri(s) ? { value: s } : { error: "Enter a full address, like https://example.com/page." };
    case "date":
      return isDate(s) ? { value: s } : { error: "Enter a date as YYYY-MM-DD." };
    case "date-time":
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(s) && isDate(s.slice(0, 10))
        ? { value: s }
        : { error: "Enter a date and time like 2025-01-31T14:00:00Z." };
    default:
      return { value: s };
  }
}

function isUri(s: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:\S+$/i.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function isObject(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function count(v: unknown): number | undefined {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined;
}

function finite(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}
