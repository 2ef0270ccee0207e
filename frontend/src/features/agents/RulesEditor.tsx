import type { Rule, ToolSpec } from "../../api/types";
import { ruleRow, type RuleRow } from "./form";

const effects: Rule["effect"][] = ["allow", "ask", "deny"];

type Props = {
  rows: readonly RuleRow[];
  catalog: readonly ToolSpec[];
  onChange: (rows: RuleRow[]) => void;
  invalidRow?: number; // the row the last save failed over
  errorId?: string;
  idPrefix: string; // row i's effect select has the id `${idPrefix}-rule-${i}`
};

// RulesEditor edits an agent's permission rules: each decides over the mode
// for the calls of a tool (or every tool) whose key argument matches a glob.
export function RulesEditor({ rows, catalog, onChange, invalidRow, errorId, idPrefix }: Props) {
  const update = (key: number, patch: Partial<RuleRow>) => onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  return (
    <div className="rules">
      {rows.length === 0 ? (
        <p className="empty">No rules: the mode alone decides what asks.</p>
      ) : (
        <table className="rules-table">
          <thead>
            <tr>
              <th scope="col">Effect</th>
              <th scope="col">Tool</th>
              <th scope="col">Match</th>
              <th scope="col">
                <span className="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => {
              const bad = invalidRow === i;
              const n = i + 1;
              // A rule read from the server may name a tool the catalog lacks: keep it choosable.
              const names = catalog.some((t) => t.name === r.tool) || r.tool === "*" ? [] : [r.tool];
              return (
                <tr key={r.key} data-testid="rule-row" className={bad ? "invalid" : undefined}>
                  <td>
                    <select
                      id={`${idPrefix}-rule-${i}`}
                      aria-label={`Rule ${n} effect`}
                      value={r.effect}
                      aria-invalid={bad || undefined}
                      aria-describedby={bad ? errorId : undefined}
                      onChange={(e) => update(r.key, { effect: e.target.value as Rule["effect"] })}
                    >
                      {effects.map((e) => (
                        <option key={e} value={e}>
                          {e}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <select aria-label={`Rule ${n} tool`} value={r.tool} onChange={(e) => update(r.key, { tool: e.target.value })}>
                      <option value="*">* (every tool)</option>
                      {[...names, ...catalog.map((t) => t.name)].map((name) => (
                        <option key={name} value={name}>
                          {name}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <input
                      type="text"
                      aria-label={`Rule ${n} match`}
                      placeholder="any call"
                      spellCheck={false}
                      value={r.match}
                      onChange={(e) => update(r.key, { match: e.target.value })}
                    />
                  </td>
                  <td>
                    <button type="button" aria-label={`Remove rule ${n}`} onClick={() => onChange(rows.filter((x) => x.key !== r.key))}>
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <button type="button" onClick={() => onChange([...rows, ruleRow()])}>
        Add rule
      </button>
    </div>
  );
}
