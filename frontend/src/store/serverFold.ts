// The part of the reducer that folds mcp.server events: what became of the
// MCP servers a run's calls reached, as notes the transcript shows after
// the call that met them. Pure, like the reducer it belongs to.

import type { Event, MCPServerData, MCPServerState } from "../api/types";
import type { RunTranscript } from "./reducer";

// ServerNote is one mcp.server event. nodeId is the call that met the
// server; afterNode places a note that names none: the node started last.
// state is as the event says, also a state this UI does not know.
export type ServerNote = {
  seq: number;
  ts: number;
  nodeId?: string;
  afterNode?: string;
  server: string;
  state: MCPServerState | string;
  era?: string;
  transport?: string;
  attempt?: number;
  reason?: string;
  stderr?: string;
  retryInMs?: number;
};

// foldServer returns t with the note of e added; the list is copied (a
// few events per crash at most).
export function foldServer(t: RunTranscript, e: Event): RunTranscript {
  const c = (e.data ?? {}) as Partial<MCPServerData>;
  if (typeof c.server !== "string" || typeof c.state !== "string") return t;
  const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  const num = (v: unknown) => (typeof v === "number" && v > 0 ? v : undefined);
  const note: ServerNote = {
    seq: e.seq,
    ts: e.ts,
    nodeId: e.node_id || undefined,
    afterNode: e.node_id || t.nodeOrder[t.nodeOrder.length - 1],
    server: c.server,
    state: c.state,
    era: text(c.era),
    transport: text(c.transport),
    attempt: num(c.attempt),
    reason: text(c.reason),
    stderr: text(c.stderr),
    retryInMs: num(c.retry_in_ms),
  };
  return { ...t, servers: [...t.servers, note] };
}

// notesAfter returns the notes placed after node id, in log order.
export function notesAfter(t: RunTranscript | undefined, id: string): ServerNote[] {
  return (t?.servers ?? []).filter((n) => n.afterNode === id);
}

// describeNotes says in one line what the notes of one call say of one
// server: "MCP server fx crashed (exit status 1); restarted, attempt 2;
// connected (2026-07-28, stdio)".
export function describeNotes(notes: readonly ServerNote[]): string {
  if (notes.length === 0) return "";
  const parts = notes.map(describe);
  return `MCP server ${notes[0]!.server} ${parts.join("; ")}`;
}

function describe(n: ServerNote): string {
  const retry = n.retryInMs ? `, started again in ${seconds(n.retryInMs)} at the soonest` : "";
  switch (n.state) {
    case "connected": {
      const how = [n.era, n.transport].filter(Boolean).join(", ");
      return how ? `connected (${how})` : "connected";
    }
    case "crashed":
      return `crashed${n.reason ? ` (${n.reason})` : ""}${retry}`;
    case "restarted":
      return n.attempt ? `restarted, attempt ${n.attempt}` : "restarted";
    case "failed":
      return `could not be started${retry}`;
    default:
      return n.state;
  }
}

// seconds says a backoff: "0.5 s", "2 s", "30 s".
function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
