// The player's position in the run and its play loop. The position is how
// many events of the log are applied (1..length: the run's first event is
// always shown); moving it sets the app store's stream to the timeline's
// state there, so every view shows the run as it was at that event.

import type { AppStore } from "../store/store";
import { playTimes, target, type Speed, type Timeline } from "./timeline";

export type PlaybackState = { at: number; playing: boolean; speed: Speed };

// Clock is what the loop needs of the browser; tests pass a fake one.
export type Clock = {
  frame: (cb: () => void) => number;
  cancel: (id: number) => void;
  now: () => number;
};

const browserClock: Clock = {
  frame: (cb) => requestAnimationFrame(() => cb()),
  cancel: (id) => cancelAnimationFrame(id),
  now: () => performance.now(),
};

// At "as fast as possible" every frame the page draws shows the next
// chunk of events, sized so the whole run plays in about this many frames:
// drawing, not reducing, is what takes the time (a render costs about the
// same for one event as for a hundred), so a long run goes in big steps
// and a short one event by event.
export const fastFrames = 120;

export class Playback {
  private state: PlaybackState;
  private readonly listeners = new Set<() => void>();
  private readonly times: Float64Array;
  private frameId: number | undefined;
  // Where playing (re)started, to pace the events from.
  private origin = { at: 0, t: 0 };

  // at, when given, is where the store already is: it shows the run after
  // its first at events (the player folded them as it read the page).
  constructor(
    private readonly timeline: Timeline,
    private readonly store: AppStore,
    private readonly clock: Clock = browserClock,
    at = 0,
  ) {
    this.times = playTimes(timeline.events);
    this.state = { at, playing: false, speed: 16 };
  }

  get length(): number {
    return this.timeline.length;
  }

  getState = (): PlaybackState => this.state;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  // seek shows the run as it was after its first i events.
  seek = (i: number): void => {
    const at = Math.min(this.timeline.length, Math.max(1, Math.floor(i)));
    if (at !== this.state.at) {
      const stream = this.timeline.move(this.state.at, this.store.getState().stream, at);
      this.store.setState({ stream });
    }
    this.origin = { at, t: this.clock.now() };
    const playing = this.state.playing && at < this.timeline.length;
    if (!playing) this.stopLoop();
    this.set({ at, playing });
  };

  play = (): void => {
    if (this.state.playing) return;
    // Played to the end: play again from the start.
    if (this.state.at >= this.timeline.length) this.seek(1);
    this.origin = { at: this.state.at, t: this.clock.now() };
    this.set({ playing: true });
    this.frameId = this.clock.frame(this.tick);
  };

  pause = (): void => {
    this.stopLoop();
    if (this.state.playing) this.set({ playing: false });
  };

  toggle = (): void => (this.state.playing ? this.pause() : this.play());

  step = (delta: number): void => {
    this.pause();
    this.seek(this.state.at + delta);
  };

  setSpeed = (speed: Speed): void => {
    this.origin = { at: this.state.at, t: this.clock.now() };
    this.set({ speed });
  };

  private tick = (): void => {
    this.frameId = undefined;
    if (!this.state.playing) return;
    const now = this.clock.now();
    const to =
      this.state.speed === "max"
        ? this.state.at + Math.max(1, Math.ceil(this.timeline.length / fastFrames))
        : target(this.state.speed, this.origin.at, now - this.origin.t, this.times);
    if (to > this.state.at) {
      // seek resets the origin; keep the pace's own.
      const origin = this.origin;
      this.seek(to);
      this.origin = origin;
    }
    if (this.state.playing) this.frameId = this.clock.frame(this.tick);
  };

  private stopLoop(): void {
    if (this.frameId !== undefined) this.clock.cancel(this.frameId);
    this.frameId = undefined;
  }

  private set(patch: Partial<PlaybackState>): void {
    this.state = { ...this.state, ...patch };
    for (const fn of this.listeners) fn();
  }
}
