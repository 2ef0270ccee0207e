import "./inbox.css";
import { useId, useMemo, useState } from "react";
import { Expiry } from "./Expiry";
import { checkForm, initialValues, readForm, type Field, type Values } from "./elicitationForm";
import { useAnswer } from "./useAnswer";

type Props = {
  interactionId: string;
  // The MCP server that asks, and the tool of the call it asks during.
  server: string;
  tool: string;
  // The server's message: untrusted, shown as plain text only.
  message: string;
  // The form asked for (form mode) or the page to visit (url mode).
  schema?: unknown;
  url?: string;
  expiresAt?: number;
};

// ElicitationCard shows what an MCP server asks a person while its tool
// runs, and sends the answer: a form read from the server's schema, or a
// page to visit and then confirm. A person may always decline. Nothing here
// opens a page by itself, and nothing the server sent is rendered as markup.
export function ElicitationCard(p: Props) {
  const { busy, error, sent, send } = useAnswer(p.interactionId);
  const server = p.server || "An MCP server";
  return (
    <div
      className="question elicitation"
      role="group"
      aria-label={`Request from ${server}`}
      data-testid="elicitation-card"
      data-interaction-id={p.interactionId}
    >
      <div className="approval-head">
        <strong>{server} asks</strong>
        <span className="muted">
          during <code>{p.tool}</code>
        </span>
        {p.expiresAt && !sent ? <Expiry expiresAt={p.expiresAt} question /> : null}
      </div>
      <p className="question-text" data-testid="elicitation-message">
        {p.message}
      </p>
      {sent ? (
        <p className="muted" data-testid="elicitation-sent">
          {sent.decision === "deny" ? "Declined" : p.url !== undefined ? "Done: the server is told" : "Sent"}
        </p>
      ) : p.url !== undefined ? (
        <UrlMode url={p.url} busy={busy} onDone={() => void send({ decision: "answer" })} onDecline={() => void send({ decision: "deny" })} />
      ) : (
        <FormMode
          schema={p.schema}
          busy={busy}
          onSubmit={(content) => void send({ decision: "answer", content })}
          onDecline={() => void send({ decision: "deny" })}
        />
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function DeclineButton({ busy, onDecline }: { busy: boolean; onDecline: () => void }) {
  return (
    <button
      type="button"
      className="deny"
      data-testid="elicitation-decline"
      disabled={busy}
      title="Do not answer: the server is told the request was declined"
      onClick={onDecline}
    >
      Decline
    </button>
  );
}

// webLink is url when it is an http(s) address, with its host; anything
// else (javascript:, file:, a relative path) is no link.
export function webLink(url: string): { href: string; host: string } | undefined {
  try {
    const u = new URL(url);
    if ((u.protocol !== "http:" && u.protocol !== "https:") || u.host === "") return undefined;
    return { href: u.href, host: u.host };
  } catch {
    return undefined;
  }
}

// UrlMode asks the person to visit a page (to sign in, to pay) and say when
// they are done. The host stands out, since the page is the server's choice.
function UrlMode({ url, busy, onDone, onDecline }: { url: string; busy: boolean; onDone: () => void; onDecline: () => void }) {
  const link = webLink(url);
  if (!link) {
    return (
      <>
        <p className="form-error" data-testid="elicitation-bad-url">
          The server asks you to open an address that is not a web page: <code className="elicitation-url">{url}</code>
        </p>
        <div className="approval-actions">
          <DeclineButton busy={busy} onDecline={onDecline} />
        </div>
      </>
    );
  }
  return (
    <>
      <p className="elicitation-site">
        <span className="muted">Page on </span>
        <strong className="elicitation-host" data-testid="elicitation-host">
          {link.host}
        </strong>
      </p>
      <code className="elicitation-url" data-testid="elicitation-url">
        {link.href}
      </code>
      <div className="approval-actions">
        {/* A plain link: the desktop window opens it as a browser tab does (no app call wraps links). */}
        <a className="button-link" href={link.href} target="_blank" rel="noopener noreferrer">
          Open page
        </a>
        <button type="button" className="approve" data-testid="elicitation-done" disabled={busy} onClick={onDone}>
          I've done it
        </button>
        <DeclineButton busy={busy} onDecline={onDecline} />
      </div>
    </>
  );
}

type FormProps = { schema: unknown; busy: boolean; onSubmit: (content: Record<string, unknown>) => void; onDecline: () => void };

// FormMode renders the server's form; the browser checks it before it is sent.
function FormMode({ schema, busy, onSubmit, onDecline }: FormProps) {
  const form = useMemo(() => readForm(schema), [schema]);
  const fields = "fields" in form ? form.fields : [];
  const [values, setValues] = useState<Values>(() => initialValues(fields));
  const [errors, setErrors] = useState<Record<string, string>>({});

  if ("unsupported" in form) {
    return (
      <>
        <p className="form-error" data-testid="elicitation-unsupported">
          This form cannot be shown here: {form.unsupported}. You can only decline.
        </p>
        <div className="approval-actions">
          <DeclineButton busy={busy} onDecline={onDecline} />
        </div>
      </>
    );
  }

  function change(name: string, v: Values[string]) {
    setValues((old) => ({ ...old, [name]: v }));
    // A corrected field loses its message; the rest keep theirs until the next try.
    setErrors((old) => {
      if (!(name in old)) return old;
      const rest = { ...old };
      delete rest[name];
      return rest;
    });
  }

  return (
    <form
      className="question-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (busy) return;
        const r = checkForm(fields, values);
        if ("errors" in r) setErrors(r.errors);
        else onSubmit(r.content);
      }}
    >
      {fields.map((f) => (
        <FieldInput key={f.name} f={f} value={values[f.name]} error={errors[f.name]} onChange={(v) => change(f.name, v)} />
      ))}
      <div className="approval-actions">
        <button type="submit" className="approve" data-testid="elicitation-submit" disabled={busy}>
          {fields.length > 0 ? "Send" : "Accept"}
        </button>
        <DeclineButton busy={busy} onDecline={onDecline} />
      </div>
    </form>
  );
}

// multiline makes a text field a box of several lines (a tool's file content).
export type FieldProps = { f: Field; value: Values[string] | undefined; error?: string; multiline?: boolean; onChange: (v: Values[string]) => void };

const inputType: Record<string, string> = { email: "email", uri: "url", date: "date" };

export function FieldInput({ f, value, error, multiline, onChange }: FieldProps) {
  const id = useId();
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const describedBy = [f.help ? helpId : "", error ? errorId : ""].filter(Boolean).join(" ") || undefined;
  const aria = { "aria-invalid": error ? true : undefined, "aria-describedby": describedBy, "aria-required": f.required || undefined };
  const label = (
    <>
      {f.label}
      {f.required && <span aria-hidden="true"> *</span>}
    </>
  );
  const notes = (
    <>
      {f.help && (
        <span id={helpId} className="muted elicitation-help">
          {f.help}
        </span>
      )}
      {error && (
        <span id={errorId} className="field-error">
          {error}
        </span>
      )}
    </>
  );
  const text = typeof value === "string" ? value : "";

  switch (f.kind) {
    case "boolean":
      return (
        <div className="elicitation-field">
          <label className="question-option">
            <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} {...aria} />
            <span>{label}</span>
          </label>
          {notes}
        </div>
      );
    case "multi": {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <fieldset className="question-options elicitation-field" aria-describedby={describedBy} aria-invalid={error ? true : undefined}>
          <legend>{label}</legend>
          {f.options.map((o) => (
            <label key={o.value} className="question-option">
              <input
                type="checkbox"
                checked={chosen.includes(o.value)}
                onChange={(e) => onChange(e.target.checked ? [...chosen, o.value] : chosen.filter((v) => v !== o.value))}
              />
              <span>{o.label}</span>
            </label>
          ))}
          {notes}
        </fieldset>
      );
    }
    case "select":
      return (
        <div className="elicitation-field">
          <label htmlFor={id}>{label}</label>
          <select id={id} value={text} onChange={(e) => onChange(e.target.value)} {...aria}>
            <option value="">{f.required ? "Choose one" : "(none)"}</option>
            {f.options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
          {notes}
        </div>
      );
    case "number":
      return (
        <div className="elicitation-field">
          <label htmlFor={id}>{label}</label>
          {/* Text, not type=number: a browser empties a number input it cannot parse, and the person would not learn why. */}
          <input id={id} type="text" inputMode={f.integer ? "numeric" : "decimal"} value={text} onChange={(e) => onChange(e.target.value)} {...aria} />
          {notes}
        </div>
      );
    default:
      if (multiline) {
        return (
          <div className="elicitation-field">
            <label htmlFor={id}>{label}</label>
            <textarea
              id={id}
              className="args-text"
              spellCheck={false}
              rows={Math.min(14, Math.max(3, text.split("\n").length))}
              value={text}
              onChange={(e) => onChange(e.target.value)}
              {...aria}
            />
            {notes}
          </div>
        );
      }
      return (
        <div className="elicitation-field">
          <label htmlFor={id}>{label}</label>
          <input
            id={id}
            type={(f.format && inputType[f.format]) || "text"}
            value={text}
            placeholder={f.format === "date-time" ? "2025-01-31T14:00:00Z" : undefined}
            onChange={(e) => onChange(e.target.value)}
            {...aria}
          />
          {notes}
        </div>
      );
  }
}
