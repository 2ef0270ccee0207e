import { memo, type CSSProperties, type KeyboardEvent } from "react";
import { spanText, type Bar } from "./timelineFold";

type Props = {
  bar: Bar;
  // The timeline's start: a bar is placed by its time since then.
  start: number;
  selected: boolean;
  onSelect: (id: string) => void;
  onKeyDown: (e: KeyboardEvent<HTMLButtonElement>) => void;
};

// TimelineRow is one node's row: what it is and how long it took, and its
// bar on the run's time axis. The bar's place is set in CSS from the
// pane's --span (the run's length so far), so a finished node's row need
// not render again as the run grows: it is memoised on its bar, which the
// fold keeps while the node does not change.
export const TimelineRow = memo(function TimelineRow({ bar, start, selected, onSelect, onKeyDown }: Props) {
  const len = bar.to - bar.from;
  const place = { "--from": bar.from - start, "--len": len } as CSSProperties;
  const label = barLabel(bar);
  return (
    <button
      type="button"
      className={`tl-row tl-depth-${bar.depth}${selected ? " selected" : ""}`}
      data-node-id={bar.id}
      data-testid="timeline-bar"
      aria-pressed={selected}
      aria-label={label}
      title={label}
      onClick={() => onSelect(bar.id)}
      onKeyDown={onKeyDown}
    >
      <span className="tl-name">
        <span className={`tl-kind tl-kind-${bar.kind}`} aria-hidden="true" />
        <span className="tl-label">{bar.label}</span>
        {bar.detail && <span className="tl-detail">{bar.detail}</span>}
        <span className="tl-dur">{bar.kind === "user" ? "" : spanText(len)}</span>
        <span className="tl-cost">{bar.costUsd ? `$${bar.costUsd.toFixed(4)}` : ""}</span>
      </span>
      <span className="tl-track" aria-hidden="true">
        <span className={`tl-bar tl-bar-${bar.kind} tl-status-${bar.status}${bar.open ? " open" : ""}`} style={place}>
          {bar.segments.map((s, i) => (
            <span
              key={i}
              className={`tl-seg tl-seg-${s.kind}`}
              style={len > 0 ? { left: `${((s.from - bar.from) / len) * 100}%`, width: `${((s.to - s.from) / len) * 100}%` } : undefined}
            />
          ))}
        </span>
      </span>
    </button>
  );
});

const kindNames: Record<Bar["kind"], string> = { llm: "model call", tool: "tool call", user: "message", agent: "agent" };

// barLabel says a row for a screen reader (and a tooltip): what the node
// is, how long it took and what of that it waited for you, how it went,
// and what it cost: "tool call read_file src/a.go: 3 ms, succeeded".
export function barLabel(b: Bar): string {
  const what = b.kind === "tool" ? `${kindNames.tool} ${b.label}${b.detail ? ` ${b.detail}` : ""}` : `${kindNames[b.kind]} ${b.label}`;
  const facts: string[] = [];
  if (b.kind !== "user") facts.push(`${spanText(b.to - b.from)}${b.open ? " so far" : ""}`);
  if (b.waitingMs > 0) facts.push(`waited ${spanText(b.waitingMs)} for you`);
  facts.push(b.status);
  if (b.costUsd) facts.push(`$${b.costUsd.toFixed(4)}`);
  return `${what}: ${facts.join(", ")}`;
}
