import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, Run } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore, type AppStore } from "../../store/store";
import { RunView } from "../transcript/RunView";
import { BrowserPanel } from "./BrowserPanel";
import { framePollMs } from "./useBrowserFrame";

const run = {
  id: "run_b", agent_id: "ag_1", agent_name: "surfer", status: "running", instructions: "Look it up",
  workspace: "/ws", mode: "auto", provider: "script", model: "", demo: false, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["pause", "cancel"],
} satisfies Run;

type Ev = Omit<Event, "run_id" | "seq" | "ts">;
const shot = { name: "shots/n_shot.png", kind: "screenshot", mime: "image/png", size: 2048, description: "The search results" };
const opened: Ev[] = [
  { type: "run.status", data: { status: "running" } },
  { type: "node.started", node_id: "n_open", data: { kind: "tool", label: "browser_open", tool: "browser_open", arguments: { url: "https://a.test" }, risk: "network" } },
  { type: "node.finished", node_id: "n_open", data: { status: "succeeded", duration_ms: 300, output: 'Page: "A test page"\nURL: https://a.test/home\n- link "Docs" [ref=e1]' } },
];
const screenshotTaken: Ev[] = [
  { type: "node.started", node_id: "n_shot", data: { kind: "tool", label: "browser_screenshot", tool: "browser_screenshot", arguments: {}, risk: "read" } },
  { type: "artifact.created", node_id: "n_shot", data: shot },
  { type: "node.finished", node_id: "n_shot", data: { status: "succeeded", duration_ms: 80, output: "Saved screenshot shots/n_shot.png" } },
];

// A fake server: the frame route answers what `frame` says; every request is recorded.
type FrameAnswer = { status: 200; time: number } | { status: 404 } | { status: 500; message: string };
function server() {
  const s = { frame: { status: 404 } as FrameAnswer, requests: [] as string[] };
  const fetch = vi.fn(async (input: RequestInfo | URL) => {
    const url = String(input);
    s.requests.push(url);
    const f = s.frame;
    if (url.endsWith("/browser/recording")) return Response.json({ name: "browser-so-far.mp4", kind: "video", mime: "video/mp4", size: 10 });
    if (!url.endsWith("/browser/frame") || f.status === 404) {
      return new Response(JSON.stringify({ error: { code: "not_found", message: "no frame" } }), { status: 404 });
    }
    // Plain objects: what the client reads of a response, without a body stream.
    if (f.status === 500) {
      return { status: 500, ok: false, statusText: "Internal Server Error", json: async () => ({ error: { code: "internal", message: f.message } }) };
    }
    return { status: 200, ok: true, headers: new Headers({ "X-Frame-Time": String(f.time) }), blob: async () => new Blob([`jpeg ${f.time}`]) };
  });
  return { s, fetch: fetch as unknown as typeof globalThis.fetch };
}

let seq = 0;
function apply(store: AppStore, evs: Ev[]) {
  store.getState().applyEvents(evs.map((e) => ({ run_id: run.id, seq: ++seq, ts: 1_700_000_000_000 + seq, ...e })));
}

function setup(evs: Ev[], ui: "panel" | "view" = "panel", frame: FrameAnswer = { status: 404 }) {
  seq = 0;
  const { s, fetch } = server();
  s.frame = frame;
  const store = createAppStore({ runs: [run], selectedRunId: run.id });
  apply(store, evs);
  render(
    <ServicesProvider value={{ api: createApi({ fetch }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
      {ui === "panel" ? <BrowserPanel runId={run.id} /> : <RunView />}
    </ServicesProvider>,
  );
  const frames = () => s.requests.filter((u) => u === `/api/v1/runs/${run.id}/browser/frame`).length;
  return { s, store, frames };
}

// tick lets the poll's timers fire and its answers arrive.
async function tick(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

let blobs = 0;
const realCreate = URL.createObjectURL;
const realRevoke = URL.revokeObjectURL;
let consoleError: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  vi.useFakeTimers();
  blobs = 0;
  URL.createObjectURL = vi.fn(() => `blob:frame-${++blobs}`);
  URL.revokeObjectURL = vi.fn();
  consoleError = vi.spyOn(console, "error");
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  URL.createObjectURL = realCreate;
  URL.revokeObjectURL = realRevoke;
  consoleError.mockRestore();
});

describe("BrowserPanel", () => {
  it("is not there when the run never used the browser", async () => {
    const { frames } = setup([{ type: "run.status", data: { status: "running" } }]);
    await tick(3 * framePollMs);
    expect(screen.queryByTestId("browser-panel")).toBeNull();
    expect(frames()).toBe(0);
  });

  it("polls the live frame about once a second, shows the newest, and stops when the run ends", async () => {
    const { s, store, frames } = setup(opened, "panel", { status: 200, time: 1000 });
    await tick(0);
    const panel = screen.getByRole("region", { name: "Browser" });
    const img = within(panel).getByRole("img", { name: "The run's browser, live" });
    expect(img.getAttribute("src")).toBe("blob:frame-1");
    expect(within(panel).getByText("live")).toBeTruthy();
    expect(within(panel).getByTestId("browser-page").textContent).toBe("A test pagehttps://a.test/home");
    expect(within(panel).getByRole("link", { name: "Open the browser's latest frame in a new tab" }).getAttribute("href")).toBe(
      "/api/v1/runs/run_b/browser/frame",
    );
    expect(frames()).toBe(1);

    // The same frame again is not decoded again; a newer one replaces it.
    await tick(framePollMs);
    expect(frames()).toBe(2);
    expect(URL.createObjectURL).toHaveBeenCalledTimes(1);
    s.frame = { status: 200, time: 2000 };
    await tick(framePollMs);
    expect(frames()).toBe(3);
    expect(within(panel).getByRole("img", { name: "The run's browser, live" }).getAttribute("src")).toBe("blob:frame-2");
    expect(URL.revokeObjectURL).toHaveBeenCalledWith("blob:frame-1");

    // The run ends with a recording: polling stops, the video shows.
    act(() =>
      apply(store, [
        { type: "artifact.created", data: { name: "browser.mp4", kind: "video", mime: "video/mp4", size: 3 * 1024 * 1024, description: "4 actions, 9 s" } },
        { type: "run.status", data: { status: "completed" } },
      ]),
    );
    await tick(10 * framePollMs);
    expect(frames()).toBe(3);
    expect(URL.revokeObjectURL).toHaveBeenCalledWith("blob:frame-2");
    const video = within(panel).getByTestId("browser-video");
    expect(video.getAttribute("src")).toBe("/api/v1/runs/run_b/artifacts/browser.mp4");
    expect(video.hasAttribute("controls")).toBe(true);
    expect(within(panel).getByRole("link", { name: "Download the recording browser.mp4" }).textContent).toBe("browser.mp4");
    expect(within(panel).getByText("recording")).toBeTruthy();
    expect(consoleError).not.toHaveBeenCalled();
  });

  it("makes a video of the work so far while the run is live", async () => {
    const { s } = setup(opened, "panel", { status: 200, time: 1000 });
    await tick(0);
    fireEvent.click(screen.getByRole("button", { name: "Video of the work so far" }));
    await tick(0);
    expect(s.requests).toContain("/api/v1/runs/run_b/browser/recording");
    const v = screen.getByLabelText("Video of the run's browser so far");
    expect(v.getAttribute("src")).toMatch(/^\/api\/v1\/runs\/run_b\/artifacts\/browser-so-far\.mp4\?t=\d+$/);
  });

  it("shows the latest screenshot while there is no live frame (404), without logging an error", async () => {
    const { frames } = setup([...opened, ...screenshotTaken]);
    await tick(0);
    await tick(2 * framePollMs);
    // A 404 doubles the wait for the next ask (1 s, then 2 s, 4 s…).
    expect(frames()).toBe(2);
    const panel = screen.getByRole("region", { name: "Browser" });
    const link = within(panel).getByRole("link", { name: "Open screenshot shots/n_shot.png full size in a new tab" });
    expect(link.getAttribute("href")).toBe("/api/v1/runs/run_b/artifacts/shots/n_shot.png");
    expect(link.getAttribute("target")).toBe("_blank");
    expect(within(link).getByRole("img", { name: "The search results" }).getAttribute("src")).toBe("/api/v1/runs/run_b/artifacts/shots/n_shot.png");
    expect(within(panel).getByText("Latest screenshot · no live frame")).toBeTruthy();
    expect(within(panel).queryByText("live")).toBeNull();
    // The page is the last one a call named: the screenshot's output names none.
    expect(within(panel).getByTestId("browser-page").textContent).toBe("A test pagehttps://a.test/home");
    expect(consoleError).not.toHaveBeenCalled();
  });

  it("says what is going on when there is nothing to show yet, and when the frame cannot be loaded", async () => {
    const { s } = setup(opened);
    const panel = screen.getByRole("region", { name: "Browser" });
    expect(within(panel).getByTestId("browser-empty").textContent).toBe("Connecting to the live view…");
    await tick(0);
    expect(within(panel).getByTestId("browser-empty").textContent).toMatch(/^No live frame yet/);
    s.frame = { status: 500, message: "screencast failed" };
    await tick(2 * framePollMs); // asked again 2 s after a 404
    expect(within(panel).getByTestId("browser-empty").textContent).toBe(
      "Could not load the live view (screencast failed); retrying every second.",
    );
    s.frame = { status: 200, time: 5 };
    await tick(framePollMs);
    expect(within(panel).getByRole("img", { name: "The run's browser, live" })).toBeTruthy();
  });

  it("asks nothing while collapsed, and again once opened", async () => {
    const { frames } = setup(opened);
    await tick(0);
    const toggle = screen.getByRole("button", { name: /Browser/ });
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    // Closed, its line still says which page the browser is on.
    expect(toggle.textContent).toContain("· A test page");
    expect(document.getElementById(toggle.getAttribute("aria-controls")!)!.hidden).toBe(true);
    await tick(5 * framePollMs);
    expect(frames()).toBe(1);
    fireEvent.click(toggle);
    await tick(0);
    expect(frames()).toBe(2);
  });

  it("does not poll an ended run, and says what to install when the recording stayed frames", async () => {
    const { frames } = setup([
      ...opened,
      { type: "artifact.created", data: { name: "frames", kind: "frames", mime: "image/jpeg", size: 0, description: "120 screencast frames, not made into a video: ffmpeg not found: install ffmpeg (apt install ffmpeg)" } },
      { type: "run.status", data: { status: "failed", error: "model unavailable" } },
    ]);
    await tick(3 * framePollMs);
    expect(frames()).toBe(0);
    const panel = screen.getByRole("region", { name: "Browser" });
    expect(within(panel).getByRole("note").textContent).toBe(
      "The recording was not made into a video. 120 screencast frames, not made into a video: ffmpeg not found: install ffmpeg (apt install ffmpeg)",
    );
    expect(within(panel).getByTestId("browser-empty").textContent).toBe("The run ended without a screenshot or a recording.");
  });

  it("sits in the run view above the transcript and graph, which stay side by side", async () => {
    setup([...opened, ...screenshotTaken], "view");
    await tick(0);
    const panel = screen.getByRole("region", { name: "Browser" });
    const transcript = screen.getByRole("region", { name: "Transcript" });
    expect(screen.getByRole("region", { name: "Graph" })).toBeTruthy();
    expect(panel.compareDocumentPosition(transcript) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    // The screenshot call's card has its thumbnail.
    const card = transcript.querySelector<HTMLElement>('article[data-tool="browser_screenshot"]')!;
    expect(within(card).getByRole("link", { name: /Open screenshot shots\/n_shot.png/ })).toBeTruthy();
  });
});
