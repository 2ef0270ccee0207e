// The recording a player page carries: what backend/recording/html writes
// into <script type="application/json" id="steward-recording">, and, from
// version 2, the run's events in parts of their own (a JSON array each,
// gzip'd and in base64, in the elements steward-recording-events-0, -1,
// ...), read one part at a time so that a long run opens without one long
// task. Byte contents (file
// blobs, artifacts) are base64, as Go's encoding/json writes []byte. A page
// someone sent is hostile input: every part is checked as it is read.

import type { Event } from "../api/types";

export const recordingElementId = "steward-recording";
export const recordingFormat = "steward-recording-html";
// The version of the embedded JSON the exporter writes, and those this
// player reads: version 1 held the events in the recording element itself.
export const recordingVersion = 2;
export const recordingVersions: readonly number[] = [1, 2];

// partElementId is the id of the element holding part i of the events.
export function partElementId(i: number): string {
  return `${recordingElementId}-events-${i}`;
}

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

// RecordingReader is a recording whose events are read part by part:
// rec.events holds those read so far (the array grows), total how many
// the recording says it has. next reads and checks the next part, appends
// it and returns it, or returns undefined once every part is read; it
// rejects with an Error saying what is wrong with a damaged one.
export type RecordingReader = {
  rec: Recording;
  total: number;
  next: () => Promise<readonly Event[] | undefined>;
};

// PartSource gives the text of part i of the events (base64 of gzip'd
// JSON), null when the page has no such part.
export type PartSource = (i: number) => string | null;

const damaged = (what: string) => new Error(`The recording in this page is damaged (${what}).`);

// openRecording opens the recording embedded in the page; it throws an
// Error whose message says what is wrong, for the page to show.
export function openRecording(doc: Document): RecordingReader {
  const el = doc.getElementById(recordingElementId);
  if (!el) {
    throw new Error(
      "This page holds no recording: it is the Steward player on its own. Export a run with `steward export RUN_ID --format html` to get a page that shows it.",
    );
  }
  return openRecordingText(el.textContent ?? "", (i) => doc.getElementById(partElementId(i))?.textContent ?? null);
}

// readRecording reads the whole recording embedded in the page.
export function readRecording(doc: Document): Promise<Recording> {
  return readAll(openRecording(doc));
}

// parseRecording reads a recording from the JSON of its element alone: a
// version 1 one, or one of version 2 whose parts part gives.
export function parseRecording(text: string, part: PartSource = () => null): Promise<Recording> {
  return readAll(openRecordingText(text, part));
}

async function readAll(r: RecordingReader): Promise<Recording> {
  while (await r.next());
  return r.rec;
}

// openRecordingText checks the recording element's JSON (nulls, Go's empty
// maps and slices, become empty ones) and returns the reader of its
// events: those of the element itself for version 1, the parts part
// gives for version 2.
export function openRecordingText(text: string, part: PartSource): RecordingReader {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw damaged(`its JSON does not parse: ${String(err)}`);
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw damaged("it is not a JSON object");
  const r = raw as Partial<Recording> & { event_count?: unknown; event_parts?: unknown };
  if (r.format !== recordingFormat) {
    throw new Error(`This page holds no Steward recording (format ${JSON.stringify(r.format)}, expected ${recordingFormat}).`);
  }
  if (typeof r.version !== "number" || !recordingVersions.includes(r.version)) {
    throw new Error(`This recording has version ${String(r.version)}; this player reads versions ${recordingVersions.join(" and ")}.`);
  }
  const rec: Recording = {
    format: r.format,
    version: r.version,
    manifest: r.manifest ?? undefined,
    events: [],
    blobs: r.blobs ?? {},
    artifacts: r.artifacts ?? {},
    omitted: r.omitted ?? [],
  };
  if (r.version === 1) {
    const all = r.events;
    if (!Array.isArray(all) || all.length === 0) throw new Error("The recording in this page has no events.");
    let done = false;
    return {
      rec,
      total: all.length,
      next: async () => {
        if (done) return undefined;
        done = true;
        return append(rec.events, all, "");
      },
    };
  }
  const total = r.event_count;
  const parts = r.event_parts;
  if (total === 0) throw new Error("The recording in this page has no events.");
  if (!isCount(total) || !isCount(parts) || parts > total) {
    throw damaged(`it says it holds ${String(total)} events in ${String(parts)} parts`);
  }
  let i = 0;
  return {
    rec,
    total,
    next: async () => {
      if (i === parts) {
        if (rec.events.length !== total) throw damaged(`its parts hold ${rec.events.length} events, not the ${total} it says`);
        return undefined;
      }
      const where = ` of part ${i + 1} of ${parts}`;
      const text = part(i);
      if (text === null) throw damaged(`part ${i + 1} of ${parts} of its events is missing`);
      if (typeof DecompressionStream === "undefined") {
        throw new Error("This browser cannot open the recording: it has no DecompressionStream (Chrome 80, Firefox 113 and Safari 16.4 on have it).");
      }
      let list: unknown;
      try {
        list = JSON.parse(await inflate(text));
      } catch (err) {
        throw damaged(`part ${i + 1} of ${parts} of its events does not parse: ${String(err)}`);
      }
      if (!Array.isArray(list) || list.length === 0) throw damaged(`part ${i + 1} of ${parts} of its events is not a list of events`);
      if (rec.events.length + list.length > total) throw damaged(`its parts hold more than the ${total} events it says`);
      i++;
      return append(rec.events, list, where);
    },
  };
}

// inflate is the text of a part: base64 of gzip'd UTF-8. The browser's
// DecompressionStream inflates it without holding the main thread.
async function inflate(b64: string): Promise<string> {
  const gz = new Response(decodeBase64(b64)).body!.pipeThrough(new DecompressionStream("gzip"));
  return new Response(gz).text();
}

// deflate is what inflate reads, made as the exporter does (for tests).
export async function deflate(text: string): Promise<string> {
  const gz = new Response(text).body!.pipeThrough(new CompressionStream("gzip"));
  const bytes = new Uint8Array(await new Response(gz).arrayBuffer());
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0;
}

// append checks list, the next events of the log, and adds them to events;
// it returns what it added.
function append(events: Event[], list: readonly unknown[], where: string): readonly Event[] {
  const from = events.length;
  let prev = events[from - 1];
  const runId = (events[0] ?? (list[0] as Event | undefined))?.run_id;
  for (let j = 0; j < list.length; j++) {
    const e = list[j] as Event;
    // The reducer skips events at or below the last seq applied: out of
    // order, the replay would silently lose some.
    if (!e || typeof e !== "object" || typeof e.run_id !== "string" || typeof e.seq !== "number" || typeof e.type !== "string") {
      throw damaged(`event ${j + 1}${where} is not an event`);
    }
    if (e.run_id !== runId || (prev !== undefined && e.seq <= prev.seq)) {
      throw damaged(`event ${from + j + 1} is out of order or of another run`);
    }
    events.push(e);
    prev = e;
  }
  return events.slice(from);
}

// decodeBase64 turns standard base64 (with padding) into bytes.
export function decodeBase64(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
