// A run's turns: its first, and one per follow-up, the message that
// continued the run after it ended, as the next message of a chat
// (backend/run/followup.go). The server gives each turn a root agent node
// of its own (no parent); a follow-up's message is a user node labelled
// "follow-up" under it, and the run.status that ends the turn says how. A
// turn is never changed once the next one starts, so the list is only ever
// appended to or has its last entry replaced.

import type { Event, NodeStartedData, RunStatus, RunStatusData } from "../api/types";
import { terminalStatuses } from "./status";

// followUpLabel is the label of a follow-up's user node.
export const followUpLabel = "follow-up";

export type Turn = {
  // The turn's root agent node and when it started.
  root: string;
  seq: number;
  startedAt: number;
  // The follow-up's message and its user node; unset for the first turn.
  message?: string;
  messageNode?: string;
  // How the turn ended: completed, failed or cancelled; unset while it runs.
  endedAs?: RunStatus;
};

// foldTurnNode is turns after node.started e: a parentless agent node
// opens a turn, a follow-up's user node under the last turn's root gives
// it its message. turns itself when e changes neither.
export function foldTurnNode(turns: readonly Turn[], e: Event, c: NodeStartedData): readonly Turn[] {
  if (!e.node_id) return turns;
  if (c.kind === "agent" && !c.parent) {
    if (turns.some((t) => t.root === e.node_id)) return turns;
    return [...turns, { root: e.node_id, seq: e.seq, startedAt: e.ts }];
  }
  const last = turns[turns.length - 1];
  if (c.kind !== "user" || c.label !== followUpLabel || !last || c.parent !== last.root || last.messageNode) return turns;
  return [...turns.slice(0, -1), { ...last, message: String(c.text ?? ""), messageNode: e.node_id }];
}

// foldTurnStatus is turns after run.status c: an end closes the last turn.
export function foldTurnStatus(turns: readonly Turn[], c: RunStatusData): readonly Turn[] {
  const last = turns[turns.length - 1];
  if (!last || !terminalStatuses.has(c.status)) return turns;
  return [...turns.slice(0, -1), { ...last, endedAs: c.status as RunStatus }];
}
