import { describe, expect, it } from "vitest";
import { fromValues, isMultiline, readArgsForm, toValues } from "./argsForm";

const schema = {
  type: "object",
  properties: {
    path: { type: "string", title: "File", description: "Relative to the workspace" },
    content: { type: "string" },
    count: { type: "integer", minimum: 1 },
    ratio: { type: "number" },
    force: { type: "boolean" },
    mode: { type: "string", enum: ["fast", "slow"] },
    tags: { type: "array", items: { type: "string" } },
    sizes: { type: "array", items: { type: "number" } },
    opts: { type: "object", properties: { a: { type: "string" } } },
    edits: { type: "array", items: { type: "object" } },
  },
  required: ["path", "content"],
};

describe("readArgsForm", () => {
  it("reads each kind, nested values as JSON", () => {
    const fields = readArgsForm(schema)!;
    const kinds = fields.map((f) => (f.kind === "field" ? `${f.field.name}:${f.field.kind}` : `${f.name}:${f.kind}`));
    expect(kinds).toEqual([
      "path:string",
      "content:string",
      "count:number",
      "ratio:number",
      "force:boolean",
      "mode:select",
      "tags:list",
      "sizes:list",
      "opts:json",
      "edits:json",
    ]);
    const path = fields[0]!;
    expect(path.kind === "field" && [path.field.label, path.field.help, path.field.required]).toEqual(["File", "Relative to the workspace", true]);
  });

  it("leaves a schema without properties to raw JSON", () => {
    expect(readArgsForm(undefined)).toBeUndefined();
    expect(readArgsForm({ type: "object" })).toBeUndefined();
    expect(readArgsForm({ type: "array" })).toBeUndefined();
    expect(readArgsForm("nonsense")).toBeUndefined();
  });

  it("makes known and multi-line text a box", () => {
    const fields = readArgsForm(schema)!;
    expect(isMultiline(fields[1]!, "x")).toBe(true); // content
    expect(isMultiline(fields[0]!, "a.txt")).toBe(false);
    expect(isMultiline(fields[0]!, "a\nb")).toBe(true);
  });
});

describe("toValues and fromValues", () => {
  const fields = readArgsForm(schema)!;

  it("round-trips a call unchanged, keeping arguments the schema does not name", () => {
    const args = { path: "a.txt", content: "", count: 2, force: false, tags: ["x", "y"], sizes: [1.5], opts: { a: "b" }, extra: 1 };
    expect(fromValues(fields, toValues(fields, args), args)).toEqual({ args });
  });

  it("leaves out an argument the call lacked while it is left empty", () => {
    const args = { path: "a.txt", content: "hi" };
    expect(fromValues(fields, toValues(fields, args), args)).toEqual({ args });
  });

  it("converts typed values and drops blank rows", () => {
    const args = { path: "a.txt", content: "hi" };
    const v = { ...toValues(fields, args), count: "3", ratio: "0.5", force: true, mode: "slow", sizes: ["1", "", "2e1"], edits: '[{"k": 1}]' };
    expect(fromValues(fields, v, args)).toEqual({ args: { ...args, count: 3, ratio: 0.5, force: true, mode: "slow", sizes: [1, 20], edits: [{ k: 1 }] } });
  });

  it("marks each wrong field", () => {
    const args = { path: "a.txt", content: "hi" };
    const v = { ...toValues(fields, args), count: "0", ratio: "abc", sizes: ["1", "x"], opts: "[1]", edits: "{" };
    const r = fromValues(fields, v, args);
    expect("errors" in r && r.errors).toEqual({
      count: "Must be at least 1.",
      ratio: "Enter a number.",
      sizes: "Item 2: Enter a number.",
      opts: "Must be a JSON object, like {}.",
      edits: expect.stringMatching(/^Not valid JSON/),
    });
  });

  it("requires a required choice or number, not non-empty text", () => {
    const s = { type: "object", properties: { n: { type: "integer" }, text: { type: "string" } }, required: ["n", "text"] };
    const f = readArgsForm(s)!;
    expect(fromValues(f, { n: "", text: "" }, {})).toEqual({ errors: { n: "Required." } });
    expect(fromValues(f, { n: "1", text: "" }, {})).toEqual({ args: { n: 1, text: "" } });
  });
});
