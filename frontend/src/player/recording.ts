// The recording a player page carries: what backend/recording/html writes
// into <script type="application/json" id="steward-recording">, read once
// when the page opens. Byte contents (file blobs, artifacts) are base64, as
// Go's encoding/json writes []byte.

import type { Event } from "../api/types";

export const recordingElementId = "steward-recording";
export const recordingFormat = "steward-recording-html";
// The versions of the embedded JSON this player reads.
export const recordingVersion = 1;

// RunSummary is the bundle manifest's summary of the run (recording.RunSummary).
export type RunSummary = {
  id?: string;
  status?: string;
  agent_name?: string;
  provider?: string;
  model?: string;
  instructions?: string;
  workspace?: string;
  created_at?: number;
  updated_at?: number;
  steps?: number;
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
  events?: number;
  forked_from?: string;
};

export type Redaction = { kind: string; where: string; count: number };

// Manifest is the part of the bundle manifest (recording.Manifest) the
// player shows; every field may be missing (an older or a partial one).
export type Manifest = {
  format?: string;
  version?: number;
  steward?: string;
  created_at?: number;
  run?: RunSummary;
  redactions?: Redaction[] | null;
  diagnostics?: Record<string, unknown>;
};

export type EmbeddedArtifact = { mime: string; data: string };

// OmittedArtifact is an artifact left out of the page (a video over the
// size limit), with the note that says how to get it.
export type OmittedArtifact = { name: string; mime: string; size: number; note: string };

export type Recording = {
  format: string;
  version: number;
  manifest?: Manifest | null;
  events: Event[];
  blobs: Record<string, string>;
  artifacts: Record<string, EmbeddedArtifact>;
  omitted: OmittedArtifact[];
};

// readRecording reads the recording embedded in the page; it throws an
// Error whose message says what is wrong, for the page to show.
export function readRecording(doc: Document): Recording {
  const el = doc.getElementById(recordingElementId);
  if (!el) {
    throw new Error(
      "This page holds no recording: it is the Steward player on its own. Export a run with `steward export RUN_ID --format html` to get a page that shows it.",
    );
  }
  return parseRecording(el.textContent ?? "");
}

// parseRecording checks the shape of the embedded JSON; nulls (Go's empty
// maps and slices) become empty ones.
export function parseRecording(text: string): Recording {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`The recording in this page is damaged (its JSON does not parse: ${String(err)}).`);
  }
  if (!raw || typeof raw !== "object") throw new Error("The recording in this page is damaged (it is not a JSON object).");
  const r = raw as Partial<Recording>;
  if (r.format !== recordingFormat) {
    throw new Error(`This page holds no Steward recording (format ${JSON.stringify(r.format)}, expected ${recordingFormat}).`);
  }
  if (r.version !== recordingVersion) {
    throw new Error(`This recording has version ${String(r.version)}; this player reads version ${recordingVersion}.`);
  }
  if (!Array.isArray(r.events) || r.events.length === 0) throw new Error("The recording in this page has no events.");
  const runId = r.events[0]!.run_id;
  for (let i = 0; i < r.events.length; i++) {
    const e = r.events[i]!;
    // The reducer skips events at or below the last seq applied: out of
    // order, the replay would silently lose some.
    if (e.run_id !== runId || (i > 0 && e.seq <= r.events[i - 1]!.seq)) {
      throw new Error(`The recording in this page is damaged (event ${i + 1} is out of order or of another run).`);
    }
  }
  return {
    format: r.format,
    version: r.version,
    manifest: r.manifest ?? undefined,
    events: r.events,
    blobs: r.blobs ?? {},
    artifacts: r.artifacts ?? {},
    omitted: r.omitted ?? [],
  };
}

// decodeBase64 turns standard base64 (with padding) into bytes.
export function decodeBase64(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
