import { useId, useMemo, useState, type Ref } from "react";
import { pretty } from "../../ui/format";
import { argName, fromValues, isMultiline, readArgsForm, toValues, type ArgField } from "./argsForm";
import { ArgsEditor, parseArguments } from "./ArgsEditor";
import { FieldInput } from "./ElicitationCard";
import type { Values } from "./elicitationForm";

type Props = {
  // The call's arguments as asked about, and its tool's schema.
  args: Record<string, unknown>;
  schema?: unknown;
  busy: boolean;
  // The card's error line: a raw edit that is no JSON object, or the
  // server's refusal of the edit.
  error?: string;
  setError: (e: string | undefined) => void;
  onApprove: (args: Record<string, unknown>) => void;
  onCancel: () => void;
  ref?: Ref<HTMLFormElement>;
};

// ArgsEdit is edit-then-approve: a form read from the tool's schema, with
// the raw JSON a toggle away (and all there is for a tool without a schema
// the form can read). Switching keeps the edits either way.
export function ArgsEdit({ args, schema, busy, error, setError, onApprove, onCancel, ref }: Props) {
  const fields = useMemo(() => readArgsForm(schema), [schema]);
  // The call the form was last filled from: what "left as it was" means.
  const [base, setBase] = useState(args);
  const [values, setValues] = useState<Values>(() => (fields ? toValues(fields, args) : {}));
  const [raw, setRaw] = useState<string | undefined>(() => (fields ? undefined : pretty(args)));
  const [errors, setErrors] = useState<Record<string, string>>({});

  function fromForm(): Record<string, unknown> | undefined {
    if (!fields) return undefined;
    const r = fromValues(fields, values, base);
    if ("errors" in r) {
      setErrors(r.errors);
      return undefined;
    }
    return r.args;
  }

  function submit() {
    if (raw === undefined) {
      const a = fromForm();
      if (a) onApprove(a);
      return;
    }
    const parsed = parseArguments(raw);
    if ("error" in parsed) setError(parsed.error);
    else onApprove(parsed.args);
  }

  function toggleRaw() {
    if (!fields) return;
    if (raw === undefined) {
      const a = fromForm();
      if (!a) return; // the marked fields say what to fix first
      setRaw(pretty(a));
      return;
    }
    const parsed = parseArguments(raw);
    if ("error" in parsed) {
      setError(parsed.error);
      return;
    }
    setError(undefined);
    setBase(parsed.args);
    setValues(toValues(fields, parsed.args));
    setErrors({});
    setRaw(undefined);
  }

  function change(name: string, v: Values[string]) {
    setValues((old) => ({ ...old, [name]: v }));
    setErrors((old) => {
      if (!(name in old)) return old;
      const rest = { ...old };
      delete rest[name];
      return rest;
    });
    if (error) setError(undefined);
  }

  return (
    <form
      ref={ref}
      className="edit-form args-form"
      noValidate
      data-testid="args-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) submit();
      }}
    >
      {raw !== undefined ? (
        <ArgsEditor value={raw} onChange={setRaw} invalid={!!error} />
      ) : (
        fields?.map((f) => {
          const name = argName(f);
          if (f.kind === "field") {
            return <FieldInput key={name} f={f.field} value={values[name]} error={errors[name]} multiline={isMultiline(f, values[name])} onChange={(v) => change(name, v)} />;
          }
          return <OtherInput key={name} f={f} value={values[name]} error={errors[name]} onChange={(v) => change(name, v)} />;
        })
      )}
      <div className="approval-actions">
        <button type="submit" className="approve" data-testid="approve-edited" disabled={busy}>
          Approve edited
        </button>
        <button type="button" data-testid="edit-args" aria-pressed="true" disabled={busy} onClick={onCancel}>
          Cancel edit
        </button>
        {fields && (
          <button type="button" className="link" data-testid="args-raw" aria-pressed={raw !== undefined} disabled={busy} onClick={toggleRaw}>
            {raw === undefined ? "Raw JSON" : "Form"}
          </button>
        )}
      </div>
    </form>
  );
}

type OtherProps = { f: Extract<ArgField, { kind: "list" | "json" }>; value: Values[string] | undefined; error?: string; onChange: (v: Values[string]) => void };

// OtherInput edits an argument no elicitation has: a list of primitives,
// one item a row, or a nested value as JSON.
function OtherInput({ f, value, error, onChange }: OtherProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const aria = { "aria-invalid": error ? true : undefined, "aria-describedby": error ? errorId : undefined };
  const label = (
    <>
      {f.label}
      {f.required && <span aria-hidden="true"> *</span>}
    </>
  );
  const notes = (
    <>
      {f.help && <span className="muted elicitation-help">{f.help}</span>}
      {error && (
        <span id={errorId} className="field-error">
          {error}
        </span>
      )}
    </>
  );
  if (f.kind === "json") {
    const text = typeof value === "string" ? value : "";
    return (
      <div className="elicitation-field">
        <label htmlFor={id}>
          {label} <span className="muted">(JSON)</span>
        </label>
        <textarea
          id={id}
          className="args-editor"
          spellCheck={false}
          rows={Math.min(10, Math.max(2, text.split("\n").length))}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          {...aria}
        />
        {notes}
      </div>
    );
  }
  const rows = Array.isArray(value) ? value : [];
  const set = (i: number, v: string) => onChange(rows.map((r, j) => (j === i ? v : r)));
  return (
    <fieldset className="elicitation-field args-list" {...aria}>
      <legend>{label}</legend>
      {rows.map((r, i) => (
        <div className="args-row" key={i}>
          <input type="text" aria-label={`${f.label} ${i + 1}`} value={r} onChange={(e) => set(i, e.target.value)} />
          <button type="button" className="link" aria-label={`Remove ${f.label} ${i + 1}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" className="link args-add" onClick={() => onChange([...rows, ""])}>
        Add {f.item.kind === "number" ? "a number" : "an item"}
      </button>
      {notes}
    </fieldset>
  );
}
