import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { bigRunEvents } from "../test/bigRun";
import { finalText, firstText, runId, testRecording } from "../test/recording";
import { createPlayer } from "./boot";
import { parseRecording, readRecording, recordingElementId } from "./recording";

describe("the player", () => {
  it("shows the whole run, and the run as it was where the scrubber is", async () => {
    const rec = testRecording();
    const p = createPlayer(rec);
    render(p.element);

    expect(screen.getByTestId("timeline-position").textContent).toBe(`${rec.events.length} / ${rec.events.length}`);
    expect(screen.getByTestId("run-status").textContent).toBe("completed");
    expect(screen.getByTestId("recorded-with").textContent).toMatch(/^Recorded with Steward v0\.9\.0-test on /);
    const transcript = screen.getByRole("region", { name: "Transcript" });
    expect(within(transcript).getByText(finalText)).toBeTruthy();
    expect(within(transcript).getAllByTestId("tool-card")).toHaveLength(2);
    // Read-only: no control that acts on a run is offered.
    expect(screen.queryByRole("button", { name: /Cancel run|Pause|Fork/ })).toBeNull();

    const scrubber = screen.getByTestId("timeline-scrubber");
    act(() => void fireEvent.change(scrubber, { target: { value: "7" } }));
    expect(screen.getByTestId("timeline-position").textContent).toBe(`7 / ${rec.events.length}`);
    expect(screen.getByTestId("run-status").textContent).toBe("running");
    expect(within(transcript).getByText(firstText)).toBeTruthy();
    expect(within(transcript).queryByText(finalText)).toBeNull();
    expect(within(transcript).queryAllByTestId("tool-card")).toHaveLength(0);

    fireEvent.click(screen.getByRole("button", { name: "Step forward" }));
    expect(screen.getByTestId("timeline-position").textContent).toBe(`8 / ${rec.events.length}`);
    expect(within(transcript).getAllByTestId("tool-card")).toHaveLength(1);
  });

  it("draws only the graph's nodes in view as the scrubber jumps through a long run", () => {
    // 100 turns: 102 nodes to draw, fewer than the app's graph draws all of.
    const rec = { ...testRecording(), events: bigRunEvents({ turns: 100, runId: runId }) };
    const p = createPlayer(rec);
    render(p.element);
    // A few nodes are in jsdom's view, not the hundred the graph holds at
    // the end: mounting every node at each jump made scrubbing a long run
    // slow (150-300 ms a jump back).
    for (const at of [rec.events.length, 600, 1500, 800]) {
      act(() => p.playback.seek(at));
      expect(screen.queryAllByTestId("graph-node").length).toBeLessThan(20);
    }
  });

  it("reads the recording embedded in the page, and says what is wrong with one it cannot", async () => {
    const doc = document.implementation.createHTMLDocument("x");
    expect(() => readRecording(doc)).toThrow(/holds no recording/);
    const el = doc.createElement("script");
    el.type = "application/json";
    el.id = recordingElementId;
    el.textContent = JSON.stringify(testRecording());
    doc.body.append(el);
    expect((await readRecording(doc)).events).toHaveLength(testRecording().events.length);

    const good = testRecording();
    expect(() => parseRecording("{")).toThrow(/damaged/);
    expect(() => parseRecording(JSON.stringify({ ...good, version: 3 }))).toThrow(/version 3; this player reads versions 1 and 2/);
    await expect(parseRecording(JSON.stringify({ ...good, events: [good.events[1], good.events[0]] }))).rejects.toThrow(/out of order/);
    const nulls = await parseRecording(JSON.stringify({ ...good, blobs: null, artifacts: null, omitted: null }));
    expect(nulls).toMatchObject({ blobs: {}, artifacts: {}, omitted: [] });
  });
});
