// The form of edit-then-approve, read from the tool's argument schema, and
// the arguments a person's edits make. Pure: ArgsForm renders it.
//
// Hand-written, like the elicitation form whose field reader and checks it
// reuses (elicitationForm.ts says why rjsf, at +126 kB gzip, was not taken);
// this file, ArgsForm.tsx and the labelled view add about 1.2 kB gzip to
// the app's chunk (gzip -9 of `npx vite build`'s index chunk, 76.9 to 78.1).
// A tool's schema may nest where an elicitation's may not: a top-level
// property this form has no input for (an object, an array of objects, a
// union of types) is edited as JSON in its own box, and a schema that is
// no object of properties leaves the whole call to the raw JSON editor.
import { checkField, readField, type Checked, type Field, type Values } from "./elicitationForm";

type Schema = Record<string, unknown>;
type Base = { name: string; label: string; help?: string; required: boolean };

// ArgField is one top-level argument as it is edited.
export type ArgField =
  // A string, number, boolean, enum or array of enumerated strings, read as
  // an elicitation's field is; multiline for text that spans lines.
  | { kind: "field"; field: Field; multiline: boolean }
  // An array of primitives: one item a row.
  | (Base & { kind: "list"; item: Field })
  // Anything else: its value as JSON.
  | (Base & { kind: "json"; json: "object" | "array" | "any" });

// Arguments whose text is worth a box of several lines whatever its length.
const longText = new Set(["content", "new_string", "old_string", "patch", "command"]);

// readArgsForm reads a tool's schema; undefined when it is no object of
// properties (the raw JSON editor is all there is then).
export function readArgsForm(schema: unknown): ArgField[] | undefined {
  if (!isObject(schema) || (schema["type"] !== undefined && schema["type"] !== "object")) return undefined;
  const props = schema["properties"];
  if (!isObject(props) || Object.keys(props).length === 0) return undefined;
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"].filter((r) => typeof r === "string") : []);
  return Object.entries(props).map(([name, p]) => readArg(name, isObject(p) ? p : {}, required.has(name)));
}

function readArg(name: string, p: Schema, required: boolean): ArgField {
  const base: Base = { name, label: text(p["title"]) || name, help: text(p["description"]) || undefined, required };
  const type = p["type"];
  const items = p["items"];
  if (type === "array" && isObject(items) && !("enum" in items) && ["string", "number", "integer", "boolean"].includes(items["type"] as string)) {
    const item = readField(name, items, true);
    if (item) return { ...base, kind: "list", item };
  }
  const field = type === "object" ? undefined : readField(name, p, required);
  if (field) return { kind: "field", field: { ...field, label: base.label, help: base.help }, multiline: longText.has(name) };
  return { ...base, kind: "json", json: type === "object" ? "object" : type === "array" ? "array" : "any" };
}

export function argName(f: ArgField): string {
  return f.kind === "field" ? f.field.name : f.name;
}

// toValues fills the inputs with a call's arguments.
export function toValues(fields: readonly ArgField[], args: Record<string, unknown>): Values {
  const v: Values = {};
  for (const f of fields) {
    const name = argName(f);
    const a = args[name];
    if (f.kind === "json") v[name] = a === undefined ? "" : JSON.stringify(a, null, 2);
    else if (f.kind === "list") v[name] = Array.isArray(a) ? a.map((x) => (typeof x === "string" ? x : JSON.stringify(x))) : [];
    else if (f.field.kind === "boolean") v[name] = a === true;
    else if (f.field.kind === "multi") v[name] = Array.isArray(a) ? a.filter((x): x is string => typeof x === "string") : [];
    else v[name] = a === undefined || a === null ? "" : typeof a === "string" ? a : JSON.stringify(a);
  }
  return v;
}

// isMultiline says whether a text field gets a box of several lines: a
// known long argument, or a value that spans lines or is long.
export function isMultiline(f: ArgField, value: Values[string] | undefined): boolean {
  return f.kind === "field" && f.field.kind === "string" && (f.multiline || (typeof value === "string" && (value.includes("\n") || value.length > 80)));
}

// fromValues makes the arguments of the edited call, or a message for each
// field that is wrong. base is the call the form was filled from: an
// argument it had stays present when emptied (an empty file's content),
// one it lacked stays absent while left empty or unticked, and arguments
// the schema does not name are kept as they were.
export function fromValues(
  fields: readonly ArgField[],
  values: Values,
  base: Record<string, unknown>,
): { args: Record<string, unknown> } | { errors: Record<string, string> } {
  const args: Record<string, unknown> = { ...base };
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const name = argName(f);
    const keep = (f.kind === "field" ? f.field.required : f.required) || name in base;
    const r = checkArg(f, values[name], keep);
    if ("error" in r) errors[name] = r.error;
    else if (r.value === undefined) delete args[name];
    else args[name] = r.value;
  }
  return Object.keys(errors).length > 0 ? { errors } : { args };
}

function checkArg(f: ArgField, raw: Values[string] | undefined, keep: boolean): Checked {
  const s = typeof raw === "string" ? raw : "";
  switch (f.kind) {
    case "json": {
      if (s.trim() === "") return f.required ? { error: "Required." } : { value: undefined };
      let v: unknown;
      try {
        v = JSON.parse(s);
      } catch (err) {
        return { error: `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
      }
      if (f.json === "object" && !isObject(v)) return { error: "Must be a JSON object, like {}." };
      if (f.json === "array" && !Array.isArray(v)) return { error: "Must be a JSON array, like []." };
      return { value: v };
    }
    case "list": {
      // Blank rows are left out: a row is added before it is typed in.
      const rows = (Array.isArray(raw) ? raw : []).filter((r) => r.trim() !== "");
      const out: unknown[] = [];
      for (const [i, row] of rows.entries()) {
        const r = checkItem(f.item, row);
        if ("error" in r) return { error: `Item ${i + 1}: ${r.error}` };
        out.push(r.value);
      }
      return out.length === 0 && !keep ? { value: undefined } : { value: out };
    }
    default: {
      const field = f.field;
      if (field.kind === "boolean") return raw === true || keep ? { value: raw === true } : { value: undefined };
      if (field.kind === "multi") {
        const r = checkField(field, raw);
        return "value" in r && r.value === undefined && keep ? { value: [] } : r;
      }
      // Text may be empty (an empty file); a number or a choice may not.
      if (s === "" && field.kind === "string") return { value: keep ? "" : undefined };
      return checkField(field, s);
    }
  }
}

function checkItem(item: Field, row: string): Checked {
  if (item.kind === "boolean") return row === "true" || row === "false" ? { value: row === "true" } : { error: "Enter true or false." };
  return checkField(item, item.kind === "number" ? row.trim() : row);
}

function isObject(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}
