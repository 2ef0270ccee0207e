import { describe, expect, it } from "vitest";
import { checkForm, initialValues, readForm, type Field, type Values } from "./elicitationForm";

function fields(properties: Record<string, unknown>, required: string[] = []): Field[] {
  const f = readForm({ type: "object", properties, required });
  if (!("fields" in f)) throw new Error(f.unsupported);
  return f.fields;
}

describe("readForm", () => {
  it.each([
    ["a schema that is no object", { type: "array" }, "the form is not an object of fields"],
    ["properties that are no object", { type: "object", properties: [] }, "the form's properties are not a list of fields"],
    ["a nested object", { properties: { a: { type: "object" } } }, 'field "a" is of a kind this form cannot show'],
    ["a list of numbers", { properties: { a: { type: "array", items: { type: "number" } } } }, 'field "a" is of a kind this form cannot show'],
    ["a type list", { properties: { a: { type: ["string", "null"] } } }, 'field "a" is of a kind this form cannot show'],
    ["no type", { properties: { a: { title: "A" } } }, 'field "a" is of a kind this form cannot show'],
    ["an enum of numbers", { properties: { a: { type: "string", enum: [1, 2] } } }, 'field "a" is of a kind this form cannot show'],
  ])("refuses %s", (_, schema, reason) => {
    expect(readForm(schema)).toEqual({ unsupported: reason });
  });

  it("reads the options of each enum form", () => {
    const [plain, named, titled, multi] = fields({
      plain: { type: "string", enum: ["a", "b"] },
      named: { type: "string", enum: ["a", "b"], enumNames: ["Aye"] },
      titled: { oneOf: [{ const: "a", title: "Aye" }, { const: "b" }], default: "z" },
      multi: { type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["b", "z"] },
    });
    expect(plain).toMatchObject({ kind: "select", options: [{ value: "a", label: "a" }, { value: "b", label: "b" }] });
    expect(named).toMatchObject({ kind: "select", options: [{ value: "a", label: "Aye" }, { value: "b", label: "b" }] });
    // A default that is none of the options is no default.
    expect(titled).toMatchObject({ kind: "select", options: [{ value: "a", label: "Aye" }, { value: "b", label: "b" }], default: undefined });
    expect(multi).toMatchObject({ kind: "multi", default: ["b"] });
  });

  it("takes an unknown string format as plain text, and no schema as an empty form", () => {
    expect(fields({ p: { type: "string", format: "password" } })[0]).toMatchObject({ kind: "string", format: undefined });
    expect(readForm(undefined)).toEqual({ fields: [] });
  });
});

describe("checkForm", () => {
  const check = (f: Field[], v: Values) => checkForm(f, { ...initialValues(f), ...v });

  it.each<[string, Record<string, unknown>, Values[string], unknown]>([
    ["a date", { type: "string", format: "date" }, "2024-02-29", "2024-02-29"],
    ["a date-time", { type: "string", format: "date-time" }, "2024-02-29T10:00:00+01:00", "2024-02-29T10:00:00+01:00"],
    ["a uri", { type: "string", format: "uri" }, "mailto:me@example.com", "mailto:me@example.com"],
    ["an integer", { type: "integer", minimum: -3 }, " -3 ", -3],
    ["a number in exponent form", { type: "number" }, "1e3", 1000],
    ["emoji counted as characters", { type: "string", maxLength: 2 }, "👍👍", "👍👍"],
    ["multi in the server's order", { type: "array", items: { enum: ["a", "b", "c"] } }, ["c", "a"], ["a", "c"]],
  ])("accepts %s", (_, p, input, want) => {
    expect(check(fields({ x: p }), { x: input })).toEqual({ content: { x: want } });
  });

  it.each<[string, Record<string, unknown>, Values[string], string]>([
    ["a day that does not exist", { type: "string", format: "date" }, "2023-02-29", "Enter a date as YYYY-MM-DD."],
    ["a date-time without a zone", { type: "string", format: "date-time" }, "2024-02-29T10:00", "Enter a date and time like 2025-01-31T14:00:00Z."],
    ["a hex number", { type: "number" }, "0x10", "Enter a number."],
    ["a number below the minimum", { type: "number", minimum: 0.5 }, "0.4", "Must be at least 0.5."],
    ["too long a text", { type: "string", maxLength: 1 }, "ab", "At most 1 character."],
    ["too few chosen", { type: "array", items: { enum: ["a", "b"] }, minItems: 2 }, ["a"], "Choose at least 2."],
  ])("refuses %s", (_, p, input, message) => {
    expect(check(fields({ x: p }), { x: input })).toEqual({ errors: { x: message } });
  });

  it("asks for what is required and leaves out what is optional and empty", () => {
    const f = fields(
      {
        name: { type: "string" }, pick: { enum: ["a"] }, many: { type: "array", items: { enum: ["a"] } },
        note: { type: "string" }, n: { type: "number" }, tags: { type: "array", items: { enum: ["a"] } }, on: { type: "boolean" },
      },
      ["name", "pick", "many"],
    );
    expect(check(f, {})).toEqual({ errors: { name: "Required.", pick: "Choose one.", many: "Choose at least one." } });
    expect(check(f, { name: "x", pick: "a", many: ["a"] })).toEqual({ content: { name: "x", pick: "a", many: ["a"], on: false } });
  });
});
