// Builds a player for a recording: the app's store, the replay over it, the
// in-memory API, and the element to render. Kept apart from main.tsx (which
// reads the page and mounts) so that tests build the same thing.

import type { ReactNode } from "react";
import { ServicesProvider, type Services } from "../store/context";
import { createAppStore, type AppStore } from "../store/store";
import { runFacts } from "./facts";
import { createMemoryApi } from "./memoryApi";
import { Playback, type Clock } from "./playback";
import { Player } from "./Player";
import type { Recording } from "./recording";
import { Timeline } from "./timeline";

export type BuiltPlayer = { element: ReactNode; playback: Playback; store: AppStore; services: Services; title: string };

export function createPlayer(rec: Recording, clock?: Clock): BuiltPlayer {
  const facts = runFacts(rec.events, rec.manifest);
  // The recording is the only run: selected, and "connected" (no banner
  // about a lost connection).
  const store = createAppStore({ selectedRunId: facts.runId, connection: "open", listsLoaded: true });
  const timeline = new Timeline(rec.events);
  const playback = new Playback(timeline, store, clock);
  // A recording opens on the whole run; Play replays it from the start.
  playback.seek(timeline.length);

  const api = createMemoryApi(rec, {
    at: () => playback.getState().at,
    transcript: () => store.getState().stream.runs[facts.runId],
  });
  const services: Services = { api, store, refreshLists: async () => {}, refreshRun: async () => {} };
  const embedded = rec.artifacts;
  const element = (
    <ServicesProvider value={services}>
      <Player rec={rec} facts={facts} playback={playback} isEmbedded={(name) => name in embedded} />
    </ServicesProvider>
  );
  return { element, playback, store, services, title: `${facts.agentName || "Run"} · ${facts.runId} · Steward recording` };
}
