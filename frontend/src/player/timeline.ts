// The run as it was at any event of its log: the app's reducer applied to
// the first i events. Reducing 10,000 events from the start on every move
// of the scrubber would be slow, so the state after every `every` events is
// kept (a checkpoint) and a position is reached from the checkpoint at or
// before it. The reducer's states are immutable and share what did not
// change, so a checkpoint costs little more than the containers it copied.

import type { Event } from "../api/types";
import { emptyStream, reduceBatch, type StreamState } from "../store/reducer";

// Events between checkpoints: scrubbing anywhere reduces fewer than this.
export const checkpointEvery = 256;

export class Timeline {
  readonly events: readonly Event[];
  readonly every: number;
  // checkpoints[k] is the state after events[0, k*every); built as far as
  // a position has needed, from the last one built.
  private readonly checkpoints: StreamState[] = [emptyStream];

  constructor(events: readonly Event[], every = checkpointEvery) {
    if (every < 1) throw new Error("checkpoint interval must be at least 1");
    this.events = events;
    this.every = every;
  }

  get length(): number {
    return this.events.length;
  }

  // stateAt is the state after the first i events (i is clamped to 0..length).
  stateAt(i: number): StreamState {
    const at = clamp(i, 0, this.events.length);
    const k = Math.floor(at / this.every);
    return reduceBatch(this.checkpoint(k), this.events.slice(k * this.every, at));
  }

  // move goes from a state known to be the one after `from` events to the
  // one after `to`: forward by reducing the events between when that is
  // shorter than from the nearest checkpoint, else through the checkpoint.
  move(from: number, state: StreamState, to: number): StreamState {
    const at = clamp(to, 0, this.events.length);
    if (at === from) return state;
    if (at > from && at - from <= at % this.every) return reduceBatch(state, this.events.slice(from, at));
    return this.stateAt(at);
  }

  private checkpoint(k: number): StreamState {
    for (let c = this.checkpoints.length; c <= k; c++) {
      const prev = this.checkpoints[c - 1]!;
      this.checkpoints.push(reduceBatch(prev, this.events.slice((c - 1) * this.every, c * this.every)));
    }
    return this.checkpoints[k]!;
  }
}

// Speed is how fast the player replays: baseRate events a second times
// the factor, as fast as the page draws (the whole run in about
// fastFrames frames), or as the run went (by the events' times, long
// pauses shortened).
export type Speed = 1 | 4 | 16 | 64 | "max" | "real";

export const speeds: readonly Speed[] = [1, 4, 16, 64, "max", "real"];

// Events a second at 1×: a streamed answer reads about as it was typed.
export const baseRate = 10;

// A pause longer than this (a person thinking over an approval, say) is
// replayed as this long at "real time".
export const maxGapMs = 3000;

// playTimes are, for each event, when it comes in a real-time replay: ms
// since the first event, gaps capped at maxGapMs (a clock that went back
// counts as no gap).
export function playTimes(events: readonly Event[]): Float64Array {
  const out = new Float64Array(events.length);
  for (let i = 1; i < events.length; i++) {
    const gap = events[i]!.ts - events[i - 1]!.ts;
    out[i] = out[i - 1]! + Math.min(Math.max(gap, 0), maxGapMs);
  }
  return out;
}

// target is how many events are applied `elapsed` ms after playing started
// with `start` applied, at a rate speed (not "max", which goes by frames).
export function target(speed: Exclude<Speed, "max">, start: number, elapsedMs: number, times: Float64Array): number {
  if (speed === "real") {
    // Event index start-1 was the last applied; those due by now follow.
    // Binary search: the first event after start not yet due.
    const due = (start > 0 ? times[start - 1]! : 0) + elapsedMs;
    let lo = start;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid]! <= due) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  return start + Math.floor((elapsedMs / 1000) * baseRate * speed);
}

export function speedLabel(s: Speed): string {
  if (s === "max") return "as fast as possible";
  if (s === "real") return "real time";
  return `${s}×`;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.floor(v)));
}
