// Small formatting helpers shared by the features.

// age says how long ago a Unix-milliseconds time was, in the largest whole unit.
export function age(then: number, now: number): string {
  const s = Math.max(0, Math.floor((now - then) / 1000));
  if (s < 10) return "just now";
  if (s < 60) return `${s}s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.floor(h / 24)}d ago`;
}

// pretty renders a JSON value for a <pre>; a string is shown as it is.
export function pretty(v: unknown): string {
  if (v === undefined) return "";
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

export function duration(ms: number | undefined): string {
  if (ms === undefined) return "";
  if (ms < 1000) return `${ms} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// shortId shortens an id such as run_abcdefghijklmnop for a sentence.
export function shortId(id: string): string {
  return id.length > 10 ? id.slice(0, 10) : id;
}

// timeLeft says how long until a Unix-milliseconds time, for a countdown:
// "42 s", "4 min 12 s", "2 h 5 min".
export function timeLeft(until: number, now: number): string {
  const s = Math.max(0, Math.ceil((until - now) / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

// clock is a Unix-milliseconds time as the local time of day (and the date
// when it is not today), for an audit row.
export function clock(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const sameDay = new Date(now).toDateString() === d.toDateString();
  return sameDay ? d.toLocaleTimeString() : d.toLocaleString();
}
