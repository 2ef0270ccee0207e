// A run's history folded in pages into a copy of its transcript held
// outside the store, which replaces the store's at few points: the first
// page at once (the run is on screen), then at most every commitEveryMs,
// and at the end. (When the views derived the whole run again for each
// update, an update per page made a 100,000-event run cost 20 full
// renders.) The pages share one draft (RunFold) until a commit reads it. The
// app's sync reads a run's history from the server this way; the recording
// player reads the parts of its page so.

import type { Event } from "../api/types";
import { emptyTranscript, RunFold, type RunTranscript } from "./reducer";
import type { AppStore } from "./store";

// How often pages folded since the last update are applied. The graph and
// the transcript take in only what changed (graph/fold.ts,
// graph/placer.ts), so an update costs about what it brings, plus a floor
// (lists of every node compared and copied): each page its own update made
// more, shorter tasks and a longer open; one a second, fewer tasks of
// 300-500 ms at 100,000 events (TestE2EPerfOpen).
export const commitEveryMs = 300;

export type HistoryFold = {
  // The transcript folded so far (reading it ends the draft the pages
  // share: the next page is folded into a copy).
  transcript: () => RunTranscript;
  // The last event folded.
  lastSeq: () => number;
  // add folds the next page of events.
  add: (events: readonly Event[]) => void;
  // isDue is true when something new was folded and nothing is shown yet
  // or everyMs have passed since the last commit; due commits then.
  isDue: () => boolean;
  due: () => void;
  // commit puts what was folded in the store, when it is new.
  commit: () => void;
};

export type HistoryFoldOptions = {
  // Runs before each commit (the sync applies the events it holds first).
  beforeCommit?: () => void;
  // The least time between two commits; commitEveryMs when not given.
  everyMs?: number;
  now?: () => number;
};

// historyFold starts from the store's transcript of runId (or an empty
// one, when the store has none or holds only the run's end: then nothing
// is committed before the fold has reached that end, and the views keep
// showing it).
export function historyFold(store: AppStore, runId: string, opts: HistoryFoldOptions = {}): HistoryFold {
  const { beforeCommit = () => {}, everyMs = commitEveryMs, now = () => performance.now() } = opts;
  let shown = store.getState().stream.runs[runId] ?? emptyTranscript(runId);
  const fold = new RunFold(shown.tailFrom === undefined ? shown : emptyTranscript(runId));
  let lastCommit = 0;
  const commit = () => {
    const t = fold.transcript;
    if (t === shown) return;
    beforeCommit();
    store.getState().setTranscript(t);
    shown = t;
    lastCommit = now();
  };
  const isDue = () =>
    shown.tailFrom !== undefined ? fold.lastSeq >= shown.lastSeq : fold.lastSeq > shown.lastSeq && (shown.lastSeq === 0 || now() - lastCommit >= everyMs);
  return {
    transcript: () => fold.transcript,
    lastSeq: () => fold.lastSeq,
    add: (events) => {
      fold.add(events);
    },
    isDue,
    due: () => {
      if (isDue()) commit();
    },
    commit,
  };
}

// nextTask resolves in a task of its own: a MessageChannel message, which
// is not clamped as a nested setTimeout is (4 ms after five levels). A
// page's fold and the views' update from it are each a task of their own:
// the two at once made the longest task. One channel serves every call, held
// here as React's scheduler holds its own, so that nothing but the browser
// decides when a message is delivered; Node (the tests) has setImmediate,
// and a channel there would keep the process alive.
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const immediate = (globalThis as { setImmediate?: (f: () => void) => void }).setImmediate;
    if (typeof immediate === "function") {
      immediate(resolve);
      return;
    }
    if (!channel) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => waiting.shift()?.();
    }
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });
}

let channel: MessageChannel | undefined;
const waiting: (() => void)[] = [];
