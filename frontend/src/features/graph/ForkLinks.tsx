import { Handle, Position, type NodeProps } from "@xyflow/react";
import { createContext, memo, useContext, useState, type MouseEvent } from "react";
import { NotHere, useRunHere } from "../exchange/here";
import { originText, type OriginNode as OriginNodeType } from "./layout";

// OpenRun opens a run, with one of its nodes selected when given; GraphPanel
// provides it (the store's selection, which the URL's hash follows).
export const OpenRun = createContext<(runId: string, nodeId?: string) => void>(() => {});

// runHref is the address of a run's page (store/hash.ts reads it), so that a
// link can also be opened in a new tab.
const runHref = (id: string) => `#run=${encodeURIComponent(id)}`;

// OriginNode stands above the first node of a forked run: the run and node it
// was forked at, as a link that opens that run with the node selected. The
// whole node opens it too (GraphPanel's node click).
// A source that is not on this machine (an imported recording's) is named,
// not linked, and a click on the node does not open it.
export const OriginNode = memo(function OriginNode({ data }: NodeProps<OriginNodeType>) {
  const open = useContext(OpenRun);
  const here = useRunHere(data.run) !== false;
  return (
    <div
      className="origin-node"
      data-testid="graph-origin"
      data-run-id={data.run}
      data-node-id={data.node}
      title={originText(data)}
      onClick={here ? undefined : (e) => e.stopPropagation()}
    >
      <span className="origin-kind">forked from</span>{" "}
      <span className="origin-text">
        {here ? (
          <a
            href={runHref(data.run)}
            className="origin-link nodrag nopan"
            data-testid="graph-origin-link"
            aria-label={`Open run ${data.run}, at ${data.label || data.node}, which this run was forked from`}
            onClick={(e) => {
              e.preventDefault();
              e.stopPropagation();
              open(data.run, data.node);
            }}
          >
            {data.run}
          </a>
        ) : (
          <NotHere id={data.run} />
        )}{" "}
        · {data.label || data.node}
      </span>
      <Handle type="source" position={Position.Bottom} isConnectable={false} className="step-handle" />
    </div>
  );
});

// ForkBadge marks a node that runs were forked from, with their count: with
// one fork it opens it; with several it lists them, each opening its run.
export function ForkBadge({ nodeId, forks }: { nodeId: string; forks: readonly string[] }) {
  const open = useContext(OpenRun);
  const [listOpen, setListOpen] = useState(false);
  // A click on the badge is not a click on the node: it does not select it.
  const stop = (e: MouseEvent) => e.stopPropagation();
  const one = forks.length === 1 ? forks[0] : undefined;
  const oneHere = useRunHere(one) !== false;
  if (one !== undefined && !oneHere) {
    return (
      <span className="step-forks nodrag nopan" data-testid="graph-fork-badge" data-node-id={nodeId} title={`Forked into run ${one}, which is not on this machine`}>
        <ForkIcon />1
      </span>
    );
  }
  if (one !== undefined) {
    return (
      <button
        type="button"
        className="step-forks nodrag nopan"
        data-testid="graph-fork-badge"
        data-node-id={nodeId}
        aria-label={`Open fork ${one}`}
        title={`Forked into ${one}: open it`}
        onClick={(e) => {
          stop(e);
          open(one);
        }}
      >
        <ForkIcon />1
      </button>
    );
  }
  return (
    <span className="fork-badge-wrap">
      <button
        type="button"
        className="step-forks nodrag nopan"
        data-testid="graph-fork-badge"
        data-node-id={nodeId}
        aria-expanded={listOpen}
        aria-label={`${forks.length} forks of this node`}
        title={`Forked into ${forks.join(", ")}`}
        onClick={(e) => {
          stop(e);
          setListOpen((o) => !o);
        }}
      >
        <ForkIcon />
        {forks.length}
      </button>
      {listOpen && (
        <ul className="fork-list nodrag nopan nowheel" aria-label={`Forks of ${nodeId}`}>
          {forks.map((f) => (
            <li key={f}>
              <ForkItem id={f} onOpen={(e) => {
                stop(e);
                setListOpen(false);
                open(f);
              }} />
            </li>
          ))}
        </ul>
      )}
    </span>
  );
}

// ForkItem opens fork id, or says it is not on this machine.
function ForkItem({ id, onOpen }: { id: string; onOpen: (e: MouseEvent) => void }) {
  if (useRunHere(id) === false) return <NotHere id={id} />;
  return (
    <button type="button" className="link" aria-label={`Open fork ${id}`} onClick={onOpen}>
      {id}
    </button>
  );
}

// ForkIcon is a branching line, drawn: the fork glyph (U+2442) is missing
// from the fonts of many systems, which show a box instead.
function ForkIcon() {
  return (
    <svg className="fork-icon" width="9" height="11" viewBox="0 0 9 11" aria-hidden="true" focusable="false">
      <path d="M2 1v9M2 6c0-2 5-2 5-4.5V1" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
    </svg>
  );
}
