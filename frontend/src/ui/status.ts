// The status vocabulary: every status a run or a node can have, and the one
// tone (colour) each is shown in, on badges, cards, graph nodes and the
// minimap alike. The words are the statuses themselves.

export type Tone = "active" | "attention" | "paused" | "ok" | "bad" | "neutral";

const tones: Record<string, Tone> = {
  // runs
  queued: "neutral",
  running: "active",
  pausing: "attention",
  paused: "paused",
  waiting: "attention",
  completed: "ok",
  failed: "bad",
  cancelled: "neutral",
  // nodes
  pending: "neutral",
  succeeded: "ok",
  denied: "bad",
  interrupted: "bad",
};

// statusTone is the tone of a status; an unknown one is neutral.
export function statusTone(status: string): Tone {
  return tones[status] ?? "neutral";
}

// statusColour is a status's colour as a CSS value, for what cannot take a
// class (the minimap paints SVG with a style).
export function statusColour(status: string): string {
  return `var(--tone-${statusTone(status)})`;
}
