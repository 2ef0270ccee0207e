import { useEffect, useRef, useState } from "react";
import type { Settings } from "../../api/types";
import { useServices } from "../../store/context";
import { errorMessage } from "../../ui/format";
import { edited, newRow, rowsOf, toUpdate, validate, type PriceRow, type PriceValues, type RowErrors } from "./prices";

type Props = { settings: Settings; onSettings: (s: Settings) => void };

// PricesSection edits the price table that run costs and max_cost_usd go by:
// configured prices can be changed or removed, defaults overridden, rows
// added. Errors show on a row once it is changed, and all at once on Save.
export function PricesSection({ settings, onSettings }: Props) {
  const { api } = useServices();
  const [rows, setRows] = useState(() => rowsOf(settings.prices));
  const [attempted, setAttempted] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();

  // A fresh answer of the server (after a save, or a reload) replaces the
  // rows; the one they were made from does not (its effect runs after the
  // first paint, when a person may have typed already).
  const shown = useRef(settings.prices);
  useEffect(() => {
    if (shown.current === settings.prices) return;
    shown.current = settings.prices;
    setRows(rowsOf(settings.prices));
    setAttempted(false);
  }, [settings.prices]);

  const errors = validate(rows);
  const change = (key: number, patch: Partial<PriceRow>) => {
    setNotice(undefined);
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, touched: true, ...patch } : r)));
  };

  async function save() {
    setAttempted(true);
    setNotice(undefined);
    if (errors.size > 0) {
      setError(`${errors.size === 1 ? "A row has" : `${errors.size} rows have`} errors: correct them to save.`);
      return;
    }
    setSaving(true);
    setError(undefined);
    try {
      onSettings(await api.updatePrices(toUpdate(rows)));
      setNotice("Prices saved. Costs of model calls from now on use them.");
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  }

  return (
    <section className="page prices-section" aria-label="Prices" data-testid="prices-section">
      <header className="page-head">
        <h1>Prices</h1>
      </header>
      <p className="muted">
        US dollars per million tokens, for each run's cost and its <code>max_cost_usd</code> limit. A model is priced by its name or
        the longest name that starts it. Defaults are list prices; change one and it is saved as configured. Removing a configured
        price brings back the default, if there is one.
      </p>
      {rows.length === 0 ? (
        <p className="empty" data-testid="prices-empty">
          No prices: add a row for each model you use, so runs show what they cost.
        </p>
      ) : (
        <table className="prices">
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Input</th>
              <th scope="col">Output</th>
              <th scope="col">Cached input</th>
              <th scope="col">Source</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <Row
                key={r.key}
                r={r}
                errors={attempted || r.touched ? errors.get(r.key) : undefined}
                onChange={(patch) => change(r.key, patch)}
                onRemove={() => {
                  setNotice(undefined);
                  setRows((rs) => rs.filter((x) => x.key !== r.key));
                }}
              />
            ))}
          </tbody>
        </table>
      )}
      <div className="form-actions">
        <button type="button" onClick={() => setRows((rs) => [...rs, newRow()])}>
          Add a price
        </button>
        <button type="button" className="primary" data-testid="prices-save" disabled={saving} onClick={() => void save()}>
          Save prices
        </button>
        {saving && <span className="muted">Saving…</span>}
      </div>
      {error && (
        <p className="form-error" role="alert" data-testid="prices-error">
          {error}
        </p>
      )}
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <p className="muted small">Saved in {settings.config_file}.</p>
    </section>
  );
}

type RowProps = { r: PriceRow; errors?: RowErrors; onChange: (patch: Partial<PriceRow>) => void; onRemove: () => void };

const columns: { k: keyof PriceValues; label: string }[] = [
  { k: "input", label: "input price" },
  { k: "output", label: "output price" },
  { k: "cached", label: "cached input price" },
];

function Row({ r, errors, onChange, onRemove }: RowProps) {
  const name = r.model.trim() || "new model";
  const messages = errors ? Object.values(errors) : [];
  const errId = `price-err-${r.key}`;
  const bad = (k: keyof RowErrors) => (errors?.[k] ? { "aria-invalid": true as const, "aria-describedby": errId } : {});
  const isEdited = edited(r);
  return (
    <>
      <tr data-testid="price-row" data-model={r.model} className={messages.length > 0 ? "has-errors" : undefined}>
        <td>
          {r.source === "new" ? (
            <input type="text" aria-label="Model name" placeholder="model name" spellCheck={false} value={r.model} onChange={(e) => onChange({ model: e.target.value })} {...bad("model")} />
          ) : (
            <code>{r.model}</code>
          )}
        </td>
        {columns.map(({ k, label }) => (
          <td key={k}>
            <input
              type="text"
              inputMode="decimal"
              className="price-input"
              aria-label={`${name} ${label}`}
              placeholder={k === "cached" ? "as input" : undefined}
              value={r[k]}
              onChange={(e) => onChange({ [k]: e.target.value })}
              {...bad(k)}
            />
          </td>
        ))}
        <td className="price-source">{isEdited ? "default, edited" : r.source}</td>
        <td className="row-actions">
          {r.source === "default" ? (
            isEdited && (
              <button type="button" aria-label={`Reset ${name} to the default`} onClick={() => onChange({ ...r.original, touched: false })}>
                Reset
              </button>
            )
          ) : (
            <button type="button" className="danger" aria-label={`Remove ${name}`} onClick={onRemove}>
              Remove
            </button>
          )}
        </td>
      </tr>
      {messages.length > 0 && (
        <tr className="price-errors">
          <td colSpan={6} id={errId} className="field-error" data-testid="price-error">
            {messages.join(" ")}
          </td>
        </tr>
      )}
    </>
  );
}
