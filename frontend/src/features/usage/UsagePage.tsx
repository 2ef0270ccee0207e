import "./usage.css";
import { useEffect, useState } from "react";
import type { UsageGroup, UsageReport, UsageRow } from "../../api/types";
import { useApp, useServices } from "../../store/context";
import { errorMessage, shortId } from "../../ui/format";
import { dollars, tokens } from "./money";
import { measureOf, UsageChart, type Measure } from "./UsageChart";

const groups: { value: UsageGroup; label: string }[] = [
  { value: "run", label: "Run" },
  { value: "agent", label: "Agent" },
  { value: "model", label: "Model" },
  { value: "day", label: "Day" },
];

const day = /^\d{4}-\d{2}-\d{2}$/;

// periodError says what is wrong with a period before it is asked for (the
// server says it too; this spares a round trip while the person types).
export function periodError(from: string, to: string): string | undefined {
  if (from && !day.test(from)) return `From "${from}" is not a day (YYYY-MM-DD)`;
  if (to && !day.test(to)) return `To "${to}" is not a day (YYYY-MM-DD)`;
  if (from && to && to < from) return "To is before From";
  return undefined;
}

// UsagePage is the tokens and cost of the runs, by run, agent, model or
// day, over a period of UTC days: a bar chart of the rows and the table of
// them. It is read again when the grouping or the period changes.
export function UsagePage() {
  const { api } = useServices();
  const select = useApp((s) => s.select);
  const [group, setGroup] = useState<UsageGroup>("day");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [measure, setMeasure] = useState<Measure>("cost");
  const [report, setReport] = useState<UsageReport>();
  const [error, setError] = useState<string>();
  const invalid = periodError(from, to);

  useEffect(() => {
    if (invalid) return;
    let live = true;
    api.usage({ group, from: from || undefined, to: to || undefined }).then(
      (r) => live && (setReport(r), setError(undefined)),
      (err: unknown) => live && setError(`Could not read the usage: ${errorMessage(err)}`),
    );
    return () => {
      live = false;
    };
  }, [api, group, from, to, invalid]);

  const rows = report?.group === group ? report.rows : [];
  const format = measure === "cost" ? dollars : tokens;
  const label = (r: UsageRow) => (group === "run" ? `${r.label} · ${shortId(r.key)}` : r.label || "(none)");
  return (
    <section className="usage-page" aria-label="Usage" data-testid="usage-page">
      <div className="usage-head">
        <h1>Usage</h1>
        <div className="usage-groups" role="group" aria-label="Group by">
          {groups.map((g) => (
            <button
              key={g.value}
              type="button"
              aria-pressed={group === g.value}
              className={group === g.value ? "active" : undefined}
              onClick={() => setGroup(g.value)}
            >
              {g.label}
            </button>
          ))}
        </div>
        <label>
          From <input type="date" aria-label="From (UTC day)" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          To <input type="date" aria-label="To (UTC day)" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
        <span className="spacer" />
        <div className="usage-groups" role="group" aria-label="Chart">
          {(["cost", "tokens"] as const).map((m) => (
            <button
              key={m}
              type="button"
              aria-pressed={measure === m}
              className={measure === m ? "active" : undefined}
              onClick={() => setMeasure(m)}
            >
              {m === "cost" ? "Cost" : "Tokens"}
            </button>
          ))}
        </div>
      </div>
      {(invalid ?? error) && (
        <p className="form-error" role="alert" data-testid="usage-error">
          {invalid ?? error}
        </p>
      )}
      {!report && !error && !invalid && <p className="muted">Loading the usage…</p>}
      {report && rows.length === 0 && <p className="muted">No runs in this period.</p>}
      {rows.length > 0 && (
        <>
          <UsageChart rows={rows} measure={measure} label={label} format={format} />
          <table className="usage-table" data-testid="usage-table">
            <thead>
              <tr>
                <th>{groups.find((g) => g.value === group)?.label}</th>
                <th className="num">Runs</th>
                <th className="num">Steps</th>
                <th className="num">Input</th>
                <th className="num">Output</th>
                <th className="num">Cached</th>
                <th className="num">Cost</th>
                <th className="share" aria-label="Share" />
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.key} data-testid="usage-row" data-key={r.key}>
                  <td>
                    {group === "run" ? (
                      <button type="button" className="link" title={`Open run ${r.key}`} onClick={() => select(r.key)}>
                        {label(r)}
                      </button>
                    ) : (
                      label(r)
                    )}
                    {group === "run" && <span className="muted"> {new Date(r.first).toLocaleString()}</span>}
                  </td>
                  <td className="num">{r.runs}</td>
                  <td className="num">{r.steps}</td>
                  <td className="num">{tokens(r.usage.input_tokens)}</td>
                  <td className="num">{tokens(r.usage.output_tokens)}</td>
                  <td className="num">{tokens(r.usage.cached_tokens)}</td>
                  <td className="num">{dollars(r.usage.cost_usd)}</td>
                  <td className="share">
                    <Share row={r} rows={rows} measure={measure} />
                  </td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr data-testid="usage-total">
                <th>Total</th>
                <td className="num">{report!.runs}</td>
                <td className="num">{rows.reduce((n, r) => n + r.steps, 0)}</td>
                <td className="num">{tokens(report!.total.input_tokens)}</td>
                <td className="num">{tokens(report!.total.output_tokens)}</td>
                <td className="num">{tokens(report!.total.cached_tokens)}</td>
                <td className="num">{dollars(report!.total.cost_usd)}</td>
                <td />
              </tr>
            </tfoot>
          </table>
          <p className="muted usage-note">
            Days are UTC. Tokens are as the providers counted them; cost is priced from the price table when each call
            finished (a model without a price costs nothing here). Imported runs are left out.
          </p>
        </>
      )}
    </section>
  );
}

// Share is the row's part of the whole, by the chart's measure.
function Share({ row, rows, measure }: { row: UsageRow; rows: UsageRow[]; measure: Measure }) {
  const all = rows.reduce((n, r) => n + measureOf(r, measure), 0);
  const pct = all > 0 ? Math.round((100 * measureOf(row, measure)) / all) : 0;
  return <span className="muted">{pct}%</span>;
}
