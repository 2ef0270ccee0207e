import type { UsageRow } from "../../api/types";

export type Measure = "cost" | "tokens";

// measureOf is what a bar of row stands for: its cost, or its input plus
// output tokens.
export function measureOf(row: UsageRow, m: Measure): number {
  return m === "cost" ? row.usage.cost_usd : row.usage.input_tokens + row.usage.output_tokens;
}

type Props = { rows: UsageRow[]; measure: Measure; label: (row: UsageRow) => string; format: (n: number) => string };

// At most this many bars: past it a bar is too thin to read or to point at;
// the table below the chart holds every row.
const maxBars = 40;

// UsageChart draws one bar per row, heights to scale with the largest, in
// plain SVG: the chart is a picture of the table, which stays the record.
export function UsageChart({ rows, measure, label, format }: Props) {
  const shown = rows.slice(0, maxBars);
  const top = Math.max(0, ...shown.map((r) => measureOf(r, measure)));
  const w = 640;
  const h = 160;
  const pad = 18; // room for the value above the tallest bar
  const slot = shown.length ? w / shown.length : w;
  const bar = Math.max(2, Math.min(48, slot * 0.7));
  return (
    <svg
      className="usage-chart"
      viewBox={`0 0 ${w} ${h}`}
      role="img"
      aria-label={`${measure === "cost" ? "Cost" : "Tokens"} per row, ${shown.length} bars`}
      data-testid="usage-chart"
    >
      <line x1={0} x2={w} y1={h - 0.5} y2={h - 0.5} className="usage-axis" />
      {shown.map((r, i) => {
        const v = measureOf(r, measure);
        const bh = top > 0 ? ((h - pad) * v) / top : 0;
        const x = i * slot + (slot - bar) / 2;
        return (
          <g key={r.key} data-testid="usage-bar">
            <title>{`${label(r)}: ${format(v)}`}</title>
            <rect x={x} y={h - bh} width={bar} height={Math.max(bh, v > 0 ? 1 : 0)} rx={2} className="usage-bar" />
            {shown.length <= 16 && v > 0 && (
              <text x={x + bar / 2} y={h - bh - 4} textAnchor="middle" className="usage-value">
                {format(v)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
