// The run view's keyboard shortcuts, as data and a pure function: which key
// does what, and when a key is not a shortcut at all (typed into a field,
// or with a modifier: Ctrl+F and the like belong to the browser).

import { typing } from "../../ui/typing";

export type ShortcutAction =
  | "pauseOrContinue"
  | "step"
  | "cancel"
  | "fork"
  | "search"
  | "transcript"
  | "graph"
  | "both"
  | "timeline"
  | "approve"
  | "deny"
  | "edit"
  | "nextApproval"
  | "prevApproval"
  | "help";

// shortcuts lists the keys in the order the help shows them.
export const shortcuts: readonly { key: string; action: ShortcutAction; text: string }[] = [
  { key: "p", action: "pauseOrContinue", text: "Pause, or continue a paused run" },
  { key: "s", action: "step", text: "Step: one model or tool call, then pause" },
  { key: "c", action: "cancel", text: "Cancel the run (asks first)" },
  { key: "f", action: "fork", text: "Fork from the node selected in the graph" },
  { key: "/", action: "search", text: "Search the transcript (Ctrl+F there too)" },
  { key: "t", action: "transcript", text: "Show the transcript" },
  { key: "g", action: "graph", text: "Show the graph" },
  { key: "b", action: "both", text: "Show both, side by side" },
  { key: "w", action: "timeline", text: "Show the timeline (waterfall)" },
  { key: "j", action: "nextApproval", text: "Focus the next pending approval" },
  { key: "k", action: "prevApproval", text: "Focus the previous pending approval" },
  { key: "a", action: "approve", text: "Approve the focused approval" },
  { key: "d", action: "deny", text: "Deny the focused approval (asks for a reason)" },
  { key: "e", action: "edit", text: "Edit the focused approval's arguments, then approve" },
  { key: "?", action: "help", text: "Show or hide this help" },
];

const byKey = new Map(shortcuts.map((s) => [s.key, s.action]));

export type KeyLike = Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "repeat" | "target">;

// shortcutFor is the action of a key press, or undefined when the key is
// not a shortcut: it was typed into a text field, held down (repeat), or
// pressed with Ctrl, Cmd or Alt. Shift is allowed: it makes the "?".
export function shortcutFor(e: KeyLike): ShortcutAction | undefined {
  if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || typing(e.target)) return undefined;
  // A key pressed inside a dialog is the dialog's.
  if (e.target instanceof Element && e.target.closest("[role=dialog]")) return undefined;
  return byKey.get(e.key);
}

// approvalKeys are the actions a focused approval card takes itself.
export const approvalKeys: ReadonlySet<ShortcutAction> = new Set(["approve", "deny", "edit"]);

// pendingCardSelector finds the approval cards still waiting for a person.
export const pendingCardSelector = "[data-testid=approval-card][data-pending]";

// moveApprovalFocus focuses the next (or previous) pending approval card
// after the focused one, each interaction once (the inbox and the
// transcript both show it), wrapping around; the first when none has the
// focus. It returns false when nothing waits.
export function moveApprovalFocus(doc: Document, by: 1 | -1): boolean {
  const seen = new Set<string>();
  const cards: HTMLElement[] = [];
  for (const el of doc.querySelectorAll<HTMLElement>(pendingCardSelector)) {
    const id = el.dataset.interactionId ?? "";
    if (seen.has(id)) continue;
    seen.add(id);
    cards.push(el);
  }
  if (cards.length === 0) return false;
  const current = (doc.activeElement as HTMLElement | null)?.closest<HTMLElement>(pendingCardSelector);
  const at = current ? cards.findIndex((c) => c.dataset.interactionId === current.dataset.interactionId) : -1;
  const next = at < 0 ? (by === 1 ? 0 : cards.length - 1) : (at + by + cards.length) % cards.length;
  cards[next]!.focus();
  cards[next]!.scrollIntoView?.({ block: "nearest" });
  return true;
}
