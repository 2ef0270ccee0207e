// The recording read in parts (version 2 pages): the player shows the
// first part at once, folds the others between tasks, and ends in the state
// the whole log folded at once gives; a damaged part is named.

import { act, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { reduceBatch, emptyStream } from "../store/reducer";
import { bigRunEvents } from "../test/bigRun";
import { pageOf, runId, testRecording } from "../test/recording";
import { openPlayer } from "./boot";
import { deflate, openRecording, partElementId, readRecording, recordingElementId, type Recording } from "./recording";

const noPause = () => Promise.resolve();

function bigRecording(turns: number): Recording {
  return { ...testRecording(), events: bigRunEvents({ turns, runId }) };
}

describe("a recording read in parts", () => {
  it("reads back every event of every part, in order", async () => {
    const rec = testRecording();
    for (const per of [1, 3, rec.events.length, rec.events.length + 5]) {
      expect((await readRecording(await pageOf(rec, per))).events).toEqual(rec.events);
    }
  });

  it("folds part by part into the state of the whole log folded at once", async () => {
    const rec = bigRecording(60); // about 900 events
    const whole = reduceBatch(emptyStream, rec.events).runs[runId];
    for (const per of [1, 7, 100, 333, 5000]) {
      const p = await openPlayer(openRecording(await pageOf(rec, per)), { pause: noPause });
      await p.load();
      expect(p.store.getState().stream.runs[runId], `parts of ${per}`).toEqual(whole);
      expect(p.playback.getState().at).toBe(rec.events.length);
      // The replay starts from the state the parts made: a step back and
      // forth lands on it again.
      p.playback.step(-1);
      expect(p.store.getState().stream.runs[runId]?.lastSeq).toBe(rec.events[rec.events.length - 2]!.seq);
      p.playback.step(1);
      expect(p.store.getState().stream.runs[runId]).toEqual(whole);
    }
  });

  it("shows the first part at once and the replay bar once every part is in", async () => {
    const rec = testRecording();
    // Parts wait until the test opens the gate.
    let open = false;
    const gate = () => new Promise<void>((resolve) => {
      const check = () => (open ? resolve() : setTimeout(check, 1));
      check();
    });
    const p = await openPlayer(openRecording(await pageOf(rec, 5)), { pause: gate });
    render(p.element);
    const done = p.load();
    await new Promise((r) => setTimeout(r, 20));
    expect(screen.getByTestId("recording-loading").textContent).toBe(`Reading the recording: 5 of ${rec.events.length} events`);
    expect(p.store.getState().stream.runs[runId]?.lastSeq).toBe(rec.events[4]!.seq);
    expect(() => p.playback).toThrow(/still being read/);
    open = true;
    await act(() => done);
    expect(screen.queryByTestId("recording-loading")).toBeNull();
    expect(screen.getByTestId("timeline-position").textContent).toBe(`${rec.events.length} / ${rec.events.length}`);
    expect(screen.getByTestId("run-status").textContent).toBe("completed");
  });

  it("says what is wrong with a damaged page", async () => {
    const rec = testRecording();
    const n = rec.events.length;
    const cases: { name: string; damage: (doc: Document) => void | Promise<void>; want: RegExp }[] = [
      { name: "a part missing", damage: (d) => d.getElementById(partElementId(1))!.remove(), want: /part 2 of 4 of its events is missing/ },
      { name: "a part cut short", damage: (d) => cut(d, 2), want: /part 3 of 4 of its events does not parse/ },
      { name: "a part not base64", damage: (d) => void (part(d, 2).textContent = "not base64!"), want: /part 3 of 4 of its events does not parse/ },
      { name: "a part not gzip", damage: (d) => void (part(d, 2).textContent = btoa("[]")), want: /part 3 of 4 of its events does not parse/ },
      { name: "a part not JSON", damage: async (d) => void (part(d, 2).textContent = await deflate("[{")), want: /part 3 of 4 of its events does not parse/ },
      { name: "a part that is no list", damage: (d) => set(d, 1, { seq: 1 }), want: /part 2 of 4 of its events is not a list of events/ },
      { name: "an empty part", damage: (d) => set(d, 1, []), want: /part 2 of 4 of its events is not a list of events/ },
      { name: "a part out of order", damage: (d) => swap(d, 1, 2), want: /is out of order or of another run/ },
      { name: "an event of another run", damage: (d) => set(d, 3, [{ ...rec.events[n - 1]!, run_id: "run_other" }]), want: /out of order or of another run/ },
      { name: "no event in a part", damage: (d) => set(d, 1, [null, 3]), want: /event 1 of part 2 of 4 is not an event/ },
      { name: "fewer events than said", damage: (d) => header(d, { event_count: n + 1 }), want: new RegExp(`its parts hold ${n} events, not the ${n + 1} it says`) },
      { name: "more events than said", damage: (d) => header(d, { event_count: n - 1 }), want: /more than the \d+ events it says/ },
      { name: "more parts than events", damage: (d) => header(d, { event_count: 2, event_parts: 3 }), want: /it says it holds 2 events in 3 parts/ },
      { name: "no count", damage: (d) => header(d, { event_count: "many" }), want: /it says it holds many events/ },
      { name: "no events", damage: (d) => header(d, { event_count: 0 }), want: /has no events/ },
    ];
    for (const c of cases) {
      const doc = await pageOf(rec, 5); // 4 parts
      await c.damage(doc);
      const open = async () => {
        const p = await openPlayer(openRecording(doc), { pause: noPause });
        await p.load();
        if (p.session.getState().error) throw new Error(p.session.getState().error);
      };
      await expect(open(), c.name).rejects.toThrow(c.want);
    }
  });

  it("shows the error of a part found damaged once the page is open", async () => {
    const doc = await pageOf(testRecording(), 5);
    cut(doc, 3);
    const p = await openPlayer(openRecording(doc), { pause: noPause });
    render(p.element);
    await act(() => p.load());
    expect(screen.getByRole("alert").textContent).toMatch(/part 4 of 4 of its events does not parse/);
  });

  it("reads a version 1 page, which held its events itself", async () => {
    const doc = document.implementation.createHTMLDocument("v1");
    const el = doc.createElement("script");
    el.id = recordingElementId;
    el.type = "application/json";
    el.textContent = JSON.stringify(testRecording());
    doc.body.append(el);
    const p = await openPlayer(openRecording(doc), { pause: noPause });
    await p.load();
    expect(p.playback.getState().at).toBe(testRecording().events.length);
    expect(p.store.getState().stream.runs[runId]?.status).toBe("completed");
  });
});

function part(doc: Document, i: number): HTMLElement {
  return doc.getElementById(partElementId(i))!;
}

function cut(doc: Document, i: number): void {
  const el = part(doc, i);
  el.textContent = el.textContent!.slice(0, -12);
}

async function set(doc: Document, i: number, v: unknown): Promise<void> {
  part(doc, i).textContent = await deflate(JSON.stringify(v));
}

function swap(doc: Document, i: number, j: number): void {
  const a = part(doc, i).textContent;
  part(doc, i).textContent = part(doc, j).textContent;
  part(doc, j).textContent = a;
}

function header(doc: Document, patch: Record<string, unknown>): void {
  const el = doc.getElementById(recordingElementId)!;
  el.textContent = JSON.stringify({ ...JSON.parse(el.textContent!), ...patch });
}
