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
