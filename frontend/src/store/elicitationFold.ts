// The part of the reducer that folds elicitations: what an MCP server asks
// the person while one of its tools runs (approval.requested and
// approval.decided of kind "elicitation"). The call was approved and is
// executing; what the person answers goes to the server, not to the call's
// approval, so the fold never touches the node's status or approval: it
// keeps a list of the node's elicitations with what became of each. Pure,
// like the reducer it belongs to.

import type { ApprovalDecidedData, ApprovalRequestedData, Event } from "../api/types";
import type { TranscriptNode } from "./reducer";

// ElicitationState is where an elicitation stands: waiting for the person;
// answered (the form sent, or the page visited); declined by the person;
// cancelled when nobody answered in time, the call ended, or the run was
// interrupted (the decision's source says which: timeout or withdrawn).
export type ElicitationState = "pending" | "answered" | "declined" | "cancelled";

// Elicitation is one request of an MCP server on a running call. schema is
// the form asked for (form mode), url the page to visit (url mode); the
// message is the server's, untrusted: a view shows it as plain text.
export type Elicitation = {
  interactionId: string;
  seq: number;
  ts: number;
  server: string;
  tool: string;
  message: string;
  schema?: unknown;
  url?: string;
  expiresAt?: number;
  state: ElicitationState;
  // Set once approval.decided arrives. content: what a form sent.
  decidedAt?: number;
  source?: string;
  feedback?: string;
  content?: unknown;
};

// isElicitationRequest says whether an approval.requested opens an elicitation.
export function isElicitationRequest(c: ApprovalRequestedData): boolean {
  return c.kind === "elicitation";
}

// isElicitationDecision says whether an approval.decided closes one of n's
// elicitations: by its kind, or, should a recording leave the kind out, by
// its interaction id.
export function isElicitationDecision(n: TranscriptNode | undefined, c: ApprovalDecidedData): boolean {
  if (c.kind === "elicitation") return true;
  if (c.kind !== undefined || n?.kind !== "tool") return false;
  return !!n.elicitations?.some((x) => x.interactionId === c.interaction_id);
}

// foldElicitationRequested returns n with the elicitation of e added, or
// the one of the same interaction replaced (a request seen twice is one);
// n itself when n is no tool call.
export function foldElicitationRequested(n: TranscriptNode, e: Event, c: ApprovalRequestedData): TranscriptNode {
  if (n.kind !== "tool" || !c.interaction_id) return n;
  const q = c.question;
  const x: Elicitation = {
    interactionId: c.interaction_id,
    seq: e.seq,
    ts: e.ts,
    server: q?.server ?? "",
    tool: c.tool || n.tool,
    message: q?.text ?? c.reason ?? "",
    schema: q?.schema ?? undefined,
    url: q?.url || undefined,
    // 0 on the wire means the interaction never expires.
    expiresAt: c.expires_at || undefined,
    state: "pending",
  };
  const list = n.elicitations ?? [];
  const i = list.findIndex((y) => y.interactionId === x.interactionId);
  return { ...n, elicitations: i < 0 ? [...list, x] : list.map((y, j) => (j === i ? x : y)) };
}

// foldElicitationDecided returns n with its elicitation of c's interaction
// closed at ts, or n itself when n has none open by that id.
export function foldElicitationDecided(n: TranscriptNode, c: ApprovalDecidedData, ts: number): TranscriptNode {
  if (n.kind !== "tool" || !n.elicitations) return n;
  const i = n.elicitations.findIndex((x) => x.interactionId === c.interaction_id);
  const x = n.elicitations[i];
  if (!x || x.state !== "pending") return n;
  const closed: Elicitation = {
    ...x,
    state: elicitationOutcome(c),
    decidedAt: ts,
    source: c.source || undefined,
    feedback: c.feedback || undefined,
    content: c.decision === "answer" ? (c.content ?? undefined) : undefined,
  };
  return { ...n, elicitations: n.elicitations.map((y, j) => (j === i ? closed : y)) };
}

// elicitationOutcome is what a decision made of an elicitation: "deny" is a
// person's decline unless the server's side ended it (timeout, withdrawn).
function elicitationOutcome(c: ApprovalDecidedData): ElicitationState {
  if (c.decision === "answer" || c.decision === "approve") return "answered";
  return c.source === "timeout" || c.source === "withdrawn" ? "cancelled" : "declined";
}

// pendingElicitation is n's elicitation waiting for the person, if any.
export function pendingElicitation(n: TranscriptNode): Elicitation | undefined {
  return n.kind === "tool" ? n.elicitations?.find((x) => x.state === "pending") : undefined;
}
