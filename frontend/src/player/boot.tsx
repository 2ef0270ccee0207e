// Builds a player for a recording: the app's store, the replay over it, the
// in-memory API, and the element to render. Kept apart from main.tsx (which
// reads the page and mounts) so that tests build the same thing.
//
// A long recording is read part by part (see recording.ts): the first part
// is folded and shown at once, the others are parsed and folded between
// tasks, as the app folds a run's history (store/historyFold.ts), and the
// replay bar comes once the whole log is in.

import type { ReactNode } from "react";
import { createStore, type StoreApi } from "zustand/vanilla";
import { ServicesProvider, type Services } from "../store/context";
import { historyFold, nextTask } from "../store/historyFold";
import { createAppStore, type AppStore } from "../store/store";
import { runFacts, type RunFacts } from "./facts";
import { createMemoryApi } from "./memoryApi";
import { Playback, type Clock } from "./playback";
import { Player } from "./Player";
import type { Event } from "../api/types";
import type { Recording, RecordingReader } from "./recording";
import { checkpointEvery, Timeline } from "./timeline";

// PlayerLoad is how far the recording is read. playback is there once
// every event is; error says what is wrong with a part found damaged.
export type PlayerLoad = {
  loaded: number;
  total: number;
  facts: RunFacts;
  playback?: Playback;
  error?: string;
};

export type BuiltPlayer = {
  element: ReactNode;
  // The replay: there once load has read every part (at once for a
  // recording given whole); it throws before.
  readonly playback: Playback;
  store: AppStore;
  services: Services;
  session: StoreApi<PlayerLoad>;
  title: string;
  // load reads the parts left, yielding to the page between two; it
  // resolves when all are in (or one was damaged: session's error).
  load: () => Promise<void>;
};

export type PlayerOptions = {
  clock?: Clock;
  // Waits between two parts; a macrotask by default, so the page draws
  // and answers input meanwhile.
  pause?: () => Promise<void>;
};

// At most this many checkpoints (the states the scrubber starts from):
// each copies the run's containers, and a long run would build hundreds.
const maxCheckpoints = 64;

// createPlayer builds the player of a recording given whole (it is ready
// at once), or of a reader and the first part it read (openPlayer).
export function createPlayer(source: Recording | RecordingReader, opts: PlayerOptions = {}, firstPart?: readonly Event[]): BuiltPlayer {
  const given = !("next" in source);
  const reader = given ? whole(source) : source;
  const rec = reader.rec;
  const first = given ? rec.events : firstPart;
  if (!first || first.length === 0) throw new Error("The recording in this page has no events.");
  const runId = rec.events[0]!.run_id;
  // The recording is the only run: selected, and "connected" (no banner
  // about a lost connection).
  const store = createAppStore({ selectedRunId: runId, connection: "open", listsLoaded: true });
  const fold = historyFold(store, runId);
  fold.add(first);
  fold.commit();
  const session = createStore<PlayerLoad>()(() => ({ loaded: rec.events.length, total: reader.total, facts: runFacts(rec.events, rec.manifest) }));

  // finish makes the replay over the whole log, at its end: the store
  // already shows it there.
  const finish = () => {
    fold.commit();
    const n = rec.events.length;
    const timeline = new Timeline(rec.events, Math.max(checkpointEvery, Math.ceil(n / maxCheckpoints)));
    session.setState({ loaded: n, facts: runFacts(rec.events, rec.manifest), playback: new Playback(timeline, store, opts.clock, n) });
  };
  const pause = opts.pause ?? nextTask;
  let loading: Promise<void> | undefined;
  const load = () =>
    (loading ??= (async () => {
      try {
        // A part is parsed and folded in one task, the views drawn from
        // it in another: the two at once made the longest task.
        for (;;) {
          await pause();
          const part = await reader.next();
          if (!part) break;
          fold.add(part);
          session.setState({ loaded: rec.events.length });
          if (fold.isDue()) {
            await pause();
            fold.commit();
          }
        }
        await pause();
        finish();
      } catch (err) {
        fold.commit();
        session.setState({ error: err instanceof Error ? err.message : String(err) });
      }
    })());
  if (given) {
    finish();
    loading = Promise.resolve();
  }

  const playbackNow = () => session.getState().playback;
  const api = createMemoryApi(rec, {
    at: () => playbackNow()?.getState().at ?? rec.events.length,
    transcript: () => store.getState().stream.runs[runId],
  });
  const services: Services = { api, store, refreshLists: async () => {}, refreshRun: async () => {} };
  const embedded = rec.artifacts;
  const element = (
    <ServicesProvider value={services}>
      <Player rec={rec} session={session} isEmbedded={(name) => name in embedded} />
    </ServicesProvider>
  );
  const facts = session.getState().facts;
  return {
    element,
    get playback() {
      const p = playbackNow();
      if (!p) throw new Error("the recording is still being read");
      return p;
    },
    store,
    services,
    session,
    title: `${facts.agentName || "Run"} · ${facts.runId} · Steward recording`,
    load,
  };
}

// openPlayer reads the first part of the recording and builds its player;
// load reads the others.
export async function openPlayer(reader: RecordingReader, opts: PlayerOptions = {}): Promise<BuiltPlayer> {
  return createPlayer(reader, opts, await reader.next());
}

// whole is the reader of a recording given with all its events.
function whole(rec: Recording): RecordingReader {
  return { rec, total: rec.events.length, next: async () => undefined };
}

