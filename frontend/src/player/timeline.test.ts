import { describe, expect, it } from "vitest";
import { emptyStream, reduce, reduceBatch } from "../store/reducer";
import { createAppStore } from "../store/store";
import { bigRunEvents } from "../test/bigRun";
import { recordingEvents } from "../test/recording";
import { fastFrames, Playback, type Clock } from "./playback";
import { baseRate, maxGapMs, playTimes, target, Timeline } from "./timeline";

describe("Timeline", () => {
  const events = bigRunEvents(); // about 10,000 events
  const timeline = new Timeline(events);

  it("gives at every position the state a full reduce gives", () => {
    const n = events.length;
    for (const i of [0, 1, 255, 256, 257, 4097, n - 1, n]) {
      expect(timeline.stateAt(i), `position ${i}`).toEqual(reduceBatch(emptyStream, events.slice(0, i)));
    }
  }, 30_000);

  it("gives the state of applying events one at a time", () => {
    const small = recordingEvents();
    const t = new Timeline(small, 4);
    let s = emptyStream;
    for (let i = 0; i <= small.length; i++) {
      expect(t.stateAt(i), `position ${i}`).toEqual(s);
      if (i < small.length) s = reduce(s, small[i]!);
    }
  });

  it("moves forward and back to the same states as stateAt", () => {
    let at = 0;
    let state = timeline.stateAt(0);
    for (const to of [10, 300, 299, 9000, 40, 41, 700, events.length, 1]) {
      state = timeline.move(at, state, to);
      at = to;
      expect(state, `to ${to}`).toEqual(timeline.stateAt(to));
    }
  }, 30_000);

  it("scrubs a 10,000-event run anywhere in little time", () => {
    timeline.stateAt(events.length); // every checkpoint built
    const started = performance.now();
    for (let k = 0; k < 200; k++) timeline.stateAt(Math.floor(((k * 7919) % 1000) / 1000 * events.length));
    const perMove = (performance.now() - started) / 200;
    // Against a reduce from the start, measured alike (the machine's load
    // slows both): a move reduces at most a checkpoint's worth of events.
    const full = performance.now();
    for (let k = 0; k < 5; k++) reduceBatch(emptyStream, events.slice(0, Math.floor(((k * 7919) % 1000) / 1000 * events.length)));
    const perFull = (performance.now() - full) / 5;
    expect(perMove).toBeLessThan(perFull / 3);
  });

  it("clamps positions out of range", () => {
    expect(timeline.stateAt(-5)).toBe(emptyStream);
    expect(timeline.stateAt(events.length + 10)).toEqual(timeline.stateAt(events.length));
  });
});

describe("pacing", () => {
  const evs = [0, 100, 100, 10_000, 10_050].map((ts, i) => ({ run_id: "r", seq: i + 1, ts, type: "llm.delta" as const, data: {} }));

  it("replays real time with long pauses shortened", () => {
    expect([...playTimes(evs)]).toEqual([0, 100, 100, 100 + maxGapMs, 150 + maxGapMs]);
  });

  it("applies the events due by now", () => {
    const times = playTimes(evs);
    expect(target("real", 0, 0, times)).toBe(1);
    expect(target("real", 1, 99, times)).toBe(1);
    expect(target("real", 1, 100, times)).toBe(3);
    expect(target("real", 3, maxGapMs, times)).toBe(4);
    expect(target("real", 0, 1e9, times)).toBe(5);
    expect(target(4, 2, 1000, times)).toBe(2 + 4 * baseRate);
  });
});

// fakeClock runs frames when told to, at a time the test sets.
function fakeClock() {
  let now = 0;
  let next = 1;
  const frames = new Map<number, () => void>();
  const clock: Clock = {
    frame: (cb) => {
      frames.set(next, cb);
      return next++;
    },
    cancel: (id) => void frames.delete(id),
    now: () => now,
  };
  const advance = (ms: number) => {
    now += ms;
    const due = [...frames.values()];
    frames.clear();
    for (const f of due) f();
  };
  return { clock, advance, pending: () => frames.size };
}

describe("Playback", () => {
  const events = recordingEvents();
  const runId = events[0]!.run_id;

  function setup() {
    const store = createAppStore();
    const timeline = new Timeline(events, 4);
    const c = fakeClock();
    const p = new Playback(timeline, store, c.clock);
    return { store, timeline, p, ...c };
  }

  it("shows in the store the run as it was at the position", () => {
    const { store, timeline, p } = setup();
    p.seek(events.length);
    expect(store.getState().stream).toEqual(timeline.stateAt(events.length));
    p.seek(5);
    expect(store.getState().stream.runs[runId]?.lastSeq).toBe(5);
    expect(store.getState().stream).toEqual(timeline.stateAt(5));
    p.seek(0); // the first event is always shown
    expect(p.getState().at).toBe(1);
    p.step(1);
    expect(p.getState().at).toBe(2);
    expect(store.getState().stream).toEqual(timeline.stateAt(2));
  });

  it("plays at the chosen speed and stops at the end", () => {
    const { store, timeline, p, advance, pending } = setup();
    p.seek(1);
    p.setSpeed(1);
    p.play();
    expect(p.getState().playing).toBe(true);
    advance(250); // 1× is baseRate events a second
    expect(p.getState().at).toBe(1 + Math.floor(0.25 * baseRate));
    p.setSpeed(64);
    advance(1000);
    expect(p.getState()).toMatchObject({ at: events.length, playing: false });
    expect(pending()).toBe(0);
    expect(store.getState().stream).toEqual(timeline.stateAt(events.length));
  });

  it("plays again from the start once at the end", () => {
    const { p, advance } = setup();
    p.seek(events.length);
    p.setSpeed("max");
    p.play();
    expect(p.getState().at).toBe(1);
    advance(5); // a short run goes event by event, a frame each
    expect(p.getState().at).toBe(2);
    for (let i = 0; i < 100 && p.getState().playing; i++) advance(5);
    expect(p.getState()).toMatchObject({ at: events.length, playing: false });
  });

  it("plays a long run as fast as possible in about fastFrames frames", () => {
    const big = bigRunEvents({ turns: 50 });
    const c = fakeClock();
    const p = new Playback(new Timeline(big), createAppStore(), c.clock);
    p.seek(1);
    p.setSpeed("max");
    p.play();
    let frames = 0;
    while (p.getState().playing && frames < 10 * fastFrames) {
      c.advance(16);
      frames++;
    }
    expect(p.getState().at).toBe(big.length);
    expect(frames).toBeLessThanOrEqual(fastFrames);
    expect(frames).toBeGreaterThan(fastFrames / 2);
  });

  it("pauses, and a scrub while playing goes on from there", () => {
    const { p, advance } = setup();
    p.seek(1);
    p.setSpeed(1);
    p.play();
    p.seek(10);
    advance(100);
    expect(p.getState().at).toBe(11);
    p.pause();
    advance(10_000);
    expect(p.getState()).toMatchObject({ at: 11, playing: false });
  });
});
