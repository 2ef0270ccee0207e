// How the inbox is laid out: approvals opened together for the parallel
// calls of one model turn share one box, so they can be decided together;
// everything else (single approvals, questions, MCP servers' requests)
// stands alone.

import type { Interaction } from "../../api/types";

export type InboxEntry =
  | { kind: "single"; key: string; interaction: Interaction }
  | { kind: "group"; key: string; runId: string; group: string; size: number; items: Interaction[] };

// groupInbox keeps the inbox's order (newest first), placing a group where
// its newest item was; inside a group the calls are in the order the model
// made them (oldest first). A group stays a group while any of its calls
// waits (group_size > 1), so that answering one does not rebuild the others'
// cards and lose what a person was typing in them.
export function groupInbox(inbox: Interaction[]): InboxEntry[] {
  const groupKey = (ia: Interaction) =>
    ia.kind === "approval" && ia.group ? `${ia.run_id}\u0000${ia.group}` : undefined;
  const members = new Map<string, Interaction[]>();
  for (const ia of inbox) {
    const k = groupKey(ia);
    if (k) members.set(k, [...(members.get(k) ?? []), ia]);
  }

  const out: InboxEntry[] = [];
  const placed = new Set<string>();
  for (const ia of inbox) {
    const k = groupKey(ia);
    const items = k ? members.get(k)! : [];
    const size = Math.max(ia.group_size ?? 0, items.length);
    if (!k || size < 2) {
      out.push({ kind: "single", key: ia.id, interaction: ia });
      continue;
    }
    if (placed.has(k)) continue;
    placed.add(k);
    // Node ids number the run's nodes in the order they opened ("n4" before
    // "n5"): the order of the model's calls, even within one millisecond.
    const ordered = [...items].sort((a, b) => nodeNumber(a.node_id) - nodeNumber(b.node_id) || a.created_at - b.created_at);
    out.push({ kind: "group", key: `group:${k}`, runId: ia.run_id, group: ia.group!, size, items: ordered });
  }
  return out;
}

function nodeNumber(id: string): number {
  const n = Number.parseInt(id.replace(/^n/, ""), 10);
  return Number.isNaN(n) ? 0 : n;
}
