import "../graph/graph.css"; // the node details' look, shared with the graph
import "./timeline.css";
import { useCallback, useEffect, useRef, type CSSProperties, type KeyboardEvent } from "react";
import { useApp } from "../../store/context";
import { VirtualList, type VirtualListHandle } from "../../ui/VirtualList";
import { NodeDetailPanel } from "../graph/NodeDetail";
import { axisTicks, percentages, shareNames, spanText, tickText, totalsText, type Segment, type Timeline } from "./timelineFold";
import { TimelineRow } from "./TimelineRow";
import { useTimeline } from "./useTimeline";

// Every row is one line: the list's estimate is its height.
const rowHeight = 26;

// TimelinePanel is a run's waterfall: every node as a bar on one time axis,
// coloured by what it spent its time on (the model answering, a tool
// running, a person being asked), the spans the run was paused behind
// them, and where the run's time went in all. It grows with the clock
// while the run goes on. A click on a bar selects its node (the store's
// selection, as the graph's) and shows its details below, where a call
// waiting for a person is approved or denied.
export function TimelinePanel({ runId, replay = false }: { runId: string; replay?: boolean }) {
  const tl = useTimeline(runId, replay);
  const selected = useApp((s) => s.runView.node);
  const selectNode = useApp((s) => s.selectNode);
  const list = useRef<VirtualListHandle>(null);
  // Set by a click here: a node selected elsewhere (the graph, the Files
  // tab) is scrolled into view, one clicked here already is.
  const clicked = useRef<string | undefined>(undefined);

  const onSelect = useCallback(
    (id: string) => {
      clicked.current = id;
      selectNode(id);
    },
    [selectNode],
  );

  const bars = tl.bars;
  // The bars as they were at the last render, for the effect below, which
  // runs only when the selection changes: a growing run does not pull the
  // view back to it.
  const latest = useRef(bars);
  latest.current = bars;
  useEffect(() => {
    if (selected === undefined || clicked.current === selected) return;
    const i = latest.current.findIndex((b) => b.id === selected);
    if (i >= 0) list.current?.scrollToIndex(i);
  }, [selected]);

  const itemKey = useCallback((i: number) => latest.current[i]!.id, []);
  const estimate = useCallback(() => rowHeight, []);

  // Up and down move between rows, as in a list; a row out of the window is
  // scrolled in first. The same function for every row and render: a row
  // renders again only when its bar or its selection changed.
  const onKeyDown = useCallback((e: KeyboardEvent<HTMLButtonElement>) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    const row = e.currentTarget.closest<HTMLElement>("[data-index]");
    if (!row) return;
    const to = Number(row.dataset["index"]) + (e.key === "ArrowDown" ? 1 : -1);
    if (to < 0 || to >= latest.current.length) return;
    e.preventDefault();
    const box = row.parentElement;
    const focus = () => box?.querySelector<HTMLElement>(`[data-index="${to}"] button`)?.focus();
    if (box?.querySelector(`[data-index="${to}"]`)) focus();
    else {
      list.current?.scrollToIndex(to);
      requestAnimationFrame(focus);
    }
  }, []);

  // The calls waiting for a person: their details answer them (approve or
  // deny), so the timeline is watched beside its approvals.
  const waiting = bars.filter((b) => b.status === "waiting");
  const span = Math.max(1, tl.end - tl.start);
  return (
    <section aria-label="Timeline" className="timeline-pane pane" data-testid="timeline-pane">
      <div className="pane-head">
        <h2 className="pane-title">Timeline</h2>
        <Totals tl={tl} />
        {waiting.length > 0 && (
          <button
            type="button"
            className="link tl-waiting"
            data-testid="timeline-waiting"
            title="Open the call waiting for you: approve or deny it in its details"
            onClick={() => {
              clicked.current = undefined; // scrolled into view, as a selection from elsewhere
              selectNode(waiting[0]!.id);
            }}
          >
            {waiting.length === 1 ? `${waiting[0]!.label} waits for you` : `${waiting.length} calls wait for you`}
          </button>
        )}
      </div>
      {bars.length === 0 ? (
        <p className="tl-empty muted">No nodes yet: each model and tool call appears here as a bar once the run starts it.</p>
      ) : (
        <div className="tl-body" style={{ "--span": span } as CSSProperties}>
          <Axis tl={tl} />
          <div className="tl-rows">
            <VirtualList
              apiRef={list}
              className="tl-list"
              aria-label="Timeline bars"
              count={bars.length}
              itemKey={itemKey}
              estimateSize={estimate}
              renderItem={(i) => (
                <TimelineRow bar={bars[i]!} start={tl.start} selected={bars[i]!.id === selected} onSelect={onSelect} onKeyDown={onKeyDown} />
              )}
            />
            <Bands spans={tl.paused} start={tl.start} />
          </div>
        </div>
      )}
      {selected && <NodeDetailPanel key={selected} runId={runId} nodeId={selected} onClose={() => selectNode(undefined)} />}
    </section>
  );
}

// Totals is where the run's time went, as a line of shares and a bar of
// them, with its length and what it cost.
function Totals({ tl }: { tl: Timeline }) {
  const shares = percentages(tl.totals);
  if (shares.length === 0) return null;
  return (
    <div className="tl-totals" data-testid="timeline-totals" aria-label={`Where the time went: ${totalsText(tl.totals)}`}>
      <span className="tl-shares" aria-hidden="true">
        {shares.map((s) => (
          <span key={s.share} className={`tl-share tl-seg-${s.share}`} style={{ flexGrow: s.ms }} title={`${shareNames[s.share]}: ${spanText(s.ms)}`} />
        ))}
      </span>
      <span className="tl-legend" aria-hidden="true">
        {shares.map((s) => (
          <span key={s.share} className="tl-legend-item">
            <span className={`tl-swatch tl-seg-${s.share}`} />
            {shareNames[s.share]} {s.percent === 0 ? "<1" : s.percent}%
          </span>
        ))}
      </span>
      <span className="tl-sum muted">
        {spanText(tl.totals.spanMs)}
        {tl.live ? " so far" : ""}
        {tl.costUsd > 0 ? ` · $${tl.costUsd.toFixed(4)}` : ""}
      </span>
    </div>
  );
}

// Axis marks the run's time from its start, in round steps.
function Axis({ tl }: { tl: Timeline }) {
  const span = Math.max(1, tl.end - tl.start);
  return (
    <div className="tl-axis" aria-hidden="true">
      <span className="tl-name" />
      <span className="tl-track">
        {/* A mark at the very end would be cut off by the pane's edge. */}
        {axisTicks(span).filter((at) => at / span <= 0.95).map((at) => (
          <span key={at} className="tl-tick" style={{ left: `${(at / span) * 100}%` }}>
            {tickText(at)}
          </span>
        ))}
      </span>
    </div>
  );
}

// Bands are the spans the run was paused, drawn across every row.
function Bands({ spans, start }: { spans: readonly Segment[]; start: number }) {
  if (spans.length === 0) return null;
  return (
    <div className="tl-bands" aria-hidden="true">
      <span className="tl-name" />
      <span className="tl-track">
        {spans.map((s) => (
          <span key={s.from} className="tl-band" data-testid="timeline-paused" style={{ "--from": s.from - start, "--len": s.to - s.from } as CSSProperties} />
        ))}
      </span>
    </div>
  );
}
