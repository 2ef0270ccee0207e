import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, Run } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { bigRunEvents } from "../../test/bigRun";
import { RunView } from "./RunView";
import { lastTurnCalls } from "./Transcript";
import { emptyTranscript, reduceRunBatch } from "../../store/reducer";

beforeEach(() => localStorage.clear());
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const run = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "running", instructions: "Tidy up",
  workspace: "/ws", mode: "edits", provider: "script", model: "", demo: true, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["pause", "steer", "cancel", "fork"],
} satisfies Run;

const longOutput = Array.from({ length: 60 }, (_, i) => `line ${i + 1} of the listing`).join("\n");

const events: Omit<Event, "run_id" | "seq" | "ts">[] = [
  { type: "run.status", data: { status: "running" } },
  { type: "node.started", node_id: "u", data: { kind: "user", label: "instructions", text: "Tidy up the notes" } },
  { type: "node.started", node_id: "m1", data: { kind: "llm", label: "model call 1" } },
  { type: "node.finished", node_id: "m1", data: { status: "succeeded", duration_ms: 5, text: "I will list the notes, then edit them." } },
  { type: "node.started", node_id: "ls", data: { kind: "tool", label: "list_dir", tool: "list_dir", arguments: { path: "notes" }, after: ["m1"] } },
  { type: "node.finished", node_id: "ls", data: { status: "succeeded", duration_ms: 2, output: longOutput } },
  { type: "node.started", node_id: "ed", data: { kind: "tool", label: "edit_file", tool: "edit_file", arguments: { path: "notes/a.md", old_string: "teh notes", new_string: "the notes" }, after: ["m1"] } },
  { type: "node.finished", node_id: "ed", data: { status: "succeeded", duration_ms: 2, output: "replaced 1 occurrence in notes/a.md (at line 3)" } },
  { type: "node.started", node_id: "m2", data: { kind: "llm", label: "model call 2", after: ["ls", "ed"] } },
  { type: "llm.delta", node_id: "m2", data: { text: "The notes are tidy." } },
];

function setup(evs: Omit<Event, "run_id" | "seq" | "ts">[] = events) {
  const store = createAppStore({ runs: [{ ...run, last_seq: evs.length }], selectedRunId: run.id });
  store.getState().applyEvents(evs.map((e, i) => ({ run_id: run.id, seq: i + 1, ts: 1000 + i, ...e })));
  render(
    <ServicesProvider value={{ api: createApi({ fetch: vi.fn() }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
      <RunView />
    </ServicesProvider>,
  );
  return { store, transcript: screen.getByRole("region", { name: "Transcript" }) };
}

const search = () => screen.getByTestId("transcript-search") as HTMLInputElement;

describe("transcript search", () => {
  it("counts and marks the matches and steps through them", () => {
    const { transcript } = setup();
    fireEvent.change(search(), { target: { value: "notes" } });
    // The instructions, the model's text, the edit's arguments and output.
    expect(screen.getByTestId("search-count").textContent).toBe("1 of 5");
    expect(transcript.querySelectorAll(".search-hit")).toHaveLength(5);
    expect(transcript.querySelector(".search-current [data-testid=user-message]")).toBeTruthy();
    expect([...transcript.querySelectorAll("mark")].every((m) => m.textContent!.toLowerCase() === "notes")).toBe(true);
    fireEvent.keyDown(search(), { key: "Enter" });
    expect(screen.getByTestId("search-count").textContent).toBe("2 of 5");
    expect(transcript.querySelector(".search-current [data-node-id=m1]")).toBeTruthy();
    fireEvent.keyDown(search(), { key: "Enter", shiftKey: true });
    fireEvent.keyDown(search(), { key: "Enter", shiftKey: true });
    expect(screen.getByTestId("search-count").textContent).toBe("5 of 5");
    fireEvent.click(screen.getByRole("button", { name: "Next match" }));
    expect(screen.getByTestId("search-count").textContent).toBe("1 of 5");
  });

  it("searches tool names and outputs, and can show only the matching cards", () => {
    const { transcript } = setup();
    fireEvent.change(search(), { target: { value: "line 42" } });
    expect(screen.getByTestId("search-count").textContent).toBe("1 of 1");
    fireEvent.click(screen.getByRole("checkbox", { name: "Only matches" }));
    expect(within(transcript).getAllByTestId("tool-card").map((c) => c.dataset["tool"])).toEqual(["list_dir"]);
    expect(within(transcript).queryByTestId("llm-message")).toBeNull();
    fireEvent.change(search(), { target: { value: "edit_file" } });
    expect(within(transcript).getAllByTestId("tool-card").map((c) => c.dataset["tool"])).toEqual(["edit_file"]);
    fireEvent.keyDown(search(), { key: "Escape" });
    expect(search().value).toBe("");
    expect(screen.queryByTestId("search-count")).toBeNull();
    expect(within(transcript).getAllByTestId("tool-card")).toHaveLength(2);
  });

  it("marks the matches inside the model's Markdown, finished and streaming", () => {
    const answer =
      "## Notes fixed\n\n**notes/a.md** had *notes* out of order:\n\n- [x] sorted the notes\n\n| file | notes |\n| --- | --- |\n| a.md | 3 notes |\n\n" +
      "```sh\nls notes\n```\n\nSee [the notes](https://example.com/notes).";
    const { transcript } = setup([
      ...events.slice(0, 3),
      { type: "node.finished", node_id: "m1", data: { status: "succeeded", duration_ms: 5, text: answer } },
      { type: "node.started", node_id: "m2", data: { kind: "llm", label: "model call 2", after: ["m1"] } },
      { type: "llm.delta", node_id: "m2", data: { text: "Done with the **notes**.\n\n" } },
      { type: "llm.delta", node_id: "m2", data: { text: "- one more `notes` check" } },
    ]);
    fireEvent.change(search(), { target: { value: "notes" } });
    const marked = (id: string, sel: string) =>
      [...transcript.querySelectorAll(`[data-node-id=${id}] [data-testid=llm-text] ${sel} mark`)].map((m) => m.textContent);
    expect(marked("m1", "h4")).toEqual(["Notes"]);
    expect(marked("m1", "strong")).toEqual(["notes"]);
    expect(marked("m1", "em")).toEqual(["notes"]);
    expect(marked("m1", "li")).toEqual(["notes"]);
    expect(marked("m1", "th")).toEqual(["notes"]);
    expect(marked("m1", "td")).toEqual(["notes"]);
    expect(marked("m1", "pre")).toEqual(["notes"]);
    expect(marked("m1", "a")).toEqual(["notes"]);
    expect(marked("m2", "strong")).toEqual(["notes"]);
    expect(marked("m2", "li code")).toEqual(["notes"]);
    // The markup is drawn, not searched: no mark holds a * or a |.
    expect([...transcript.querySelectorAll("[data-testid=llm-text] mark")].every((m) => m.textContent!.toLowerCase() === "notes")).toBe(true);
  });

  it("says when nothing matches", () => {
    setup();
    fireEvent.change(search(), { target: { value: "zebra" } });
    expect(screen.getByTestId("search-count").textContent).toBe("no matches");
  });

  it("focuses the search on Ctrl+F inside the transcript", () => {
    const { transcript } = setup();
    const list = within(transcript).getByLabelText("Transcript messages");
    list.focus();
    fireEvent.keyDown(list, { key: "f", ctrlKey: true });
    expect(document.activeElement).toBe(search());
  });
});

describe("tool cards", () => {
  it("start collapsed when long, open on a click, and open for the current search match", () => {
    const { transcript } = setup();
    const card = () => transcript.querySelector<HTMLElement>('article[data-tool="list_dir"]')!;
    expect(card().classList.contains("collapsed")).toBe(true);
    expect(card().querySelector(".tool-output")!.textContent).toBe("line 1 of the listing\nline 2 of the listing\nline 3 of the listing\n… 57 more lines");
    const toggle = within(card()).getByTestId("tool-card-toggle");
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(toggle);
    expect(card().querySelector(".tool-output")!.textContent).toBe(longOutput);
    fireEvent.click(within(card()).getByRole("button", { name: "Collapse" }));
    expect(card().classList.contains("collapsed")).toBe(true);
    fireEvent.change(search(), { target: { value: "line 42" } });
    expect(card().classList.contains("collapsed")).toBe(false);
    expect(card().querySelector("mark")!.textContent).toBe("line 42");
  });

  it("show edit_file's replacement as a diff", () => {
    const { transcript } = setup();
    const card = transcript.querySelector<HTMLElement>('article[data-tool="edit_file"]')!;
    expect(card.classList.contains("collapsed")).toBe(false);
    const diff = within(card).getByTestId("tool-diff");
    expect([...diff.querySelectorAll(".diff-row")].map((r) => [r.getAttribute("data-kind"), r.textContent])).toEqual([
      ["hunk", "@@ -3,1 +3,1 @@"],
      ["del", "3-teh notes"],
      ["add", "3+the notes"],
    ]);
    expect(card.textContent).toContain("notes/a.md");
  });
});

describe("MCP servers", () => {
  it("say after a call's card what became of the server it reached", () => {
    const { store, transcript } = setup([
      ...events.slice(0, 4),
      { type: "node.started", node_id: "x", data: { kind: "tool", label: "mcp__fx__exit", tool: "mcp__fx__exit", arguments: {}, after: ["m1"] } },
      { type: "mcp.server", node_id: "x", data: { server: "fx", state: "connected", era: "2026-07-28", transport: "stdio", attempt: 1 } },
      { type: "mcp.server", node_id: "x", data: { server: "fx", state: "crashed", reason: "exit status 1", stderr: "panic: boom", retry_in_ms: 500 } },
      { type: "node.finished", node_id: "x", data: { status: "failed", duration_ms: 3, is_error: true, code: "mcp_server_unavailable", output: "MCP server fx stopped" } },
    ]);
    const line = () => within(transcript).getAllByTestId("transcript-mcp-server");
    expect(line().map((l) => l.textContent)).toEqual([
      "MCP server fx connected (2026-07-28, stdio); crashed (exit status 1), started again in 0.5 s at the soonest",
    ]);
    expect(line()[0]!.className).toContain("t-server-bad");
    expect(line()[0]!.title).toBe("its stderr ends:\npanic: boom");
    // After the card of the call that met it.
    const card = transcript.querySelector('[data-node-id="x"]')!;
    expect(card.compareDocumentPosition(line()[0]!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();

    // The next call restarts it: a line of its own, after its card.
    act(() =>
      store.getState().applyEvents([
        { run_id: run.id, seq: 9, ts: 2000, type: "node.started", node_id: "y", data: { kind: "tool", label: "mcp__fx__echo", tool: "mcp__fx__echo", arguments: {}, after: ["x"] } },
        { run_id: run.id, seq: 10, ts: 2500, type: "mcp.server", node_id: "y", data: { server: "fx", state: "restarted", attempt: 2 } },
        { run_id: run.id, seq: 11, ts: 2600, type: "mcp.server", node_id: "y", data: { server: "fx", state: "connected", era: "2026-07-28", transport: "stdio", attempt: 2 } },
      ]),
    );
    expect(line().map((l) => l.textContent)).toEqual([
      "MCP server fx connected (2026-07-28, stdio); crashed (exit status 1), started again in 0.5 s at the soonest",
      "MCP server fx restarted, attempt 2; connected (2026-07-28, stdio)",
    ]);
    expect(line()[1]!.className).not.toContain("t-server-bad");
    const next = transcript.querySelector('[data-node-id="y"]')!;
    expect(next.compareDocumentPosition(line()[1]!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });
});

describe("tool progress", () => {
  it("shows the latest progress on the running call's card, as a bar when the total is known", () => {
    const { store, transcript } = setup([
      ...events.slice(0, 4),
      { type: "node.started", node_id: "c", data: { kind: "tool", label: "mcp__fx__copy", tool: "mcp__fx__copy", arguments: {}, after: ["m1"] } },
      { type: "tool.executing", node_id: "c", data: {} },
      { type: "tool.progress", node_id: "c", data: { progress: 1, total: 4, message: "copying a.txt" } },
    ]);
    const card = () => transcript.querySelector('[data-node-id="c"]') as HTMLElement;
    const bar = () => within(card()).getByRole("progressbar", { name: "progress of mcp__fx__copy" }) as HTMLProgressElement;
    expect(bar().value).toBe(0.25);
    expect(within(card()).getByRole("status").textContent).toBe("1 of 4 (25%): copying a.txt");

    // A later report replaces it; one without a total is a count, no bar.
    act(() => store.getState().applyEvents([
      { run_id: run.id, seq: 8, ts: 2000, type: "tool.progress", node_id: "c", data: { progress: 3, total: 4, message: "copying c.txt" } },
    ]));
    expect(bar().value).toBe(0.75);
    expect(within(card()).getByRole("status").textContent).toBe("3 of 4 (75%): copying c.txt");
    act(() => store.getState().applyEvents([
      { run_id: run.id, seq: 9, ts: 2100, type: "tool.progress", node_id: "c", data: { progress: 7, message: "still copying" } },
    ]));
    expect(within(card()).queryByRole("progressbar")).toBeNull();
    expect(within(card()).getByRole("status").textContent).toBe("7: still copying");

    // Once the call ended its output says the rest: the row is gone.
    act(() => store.getState().applyEvents([
      { run_id: run.id, seq: 10, ts: 2200, type: "node.finished", node_id: "c", data: { status: "succeeded", duration_ms: 1200, output: "copied 7 files" } },
    ]));
    expect(within(card()).queryByTestId("tool-progress")).toBeNull();
    expect(card().textContent).toContain("copied 7 files");
  });
});

describe("a long run", () => {
  it("renders a window of its 2,000 nodes, not all of them", () => {
    const big = bigRunEvents();
    const store = createAppStore({ runs: [{ ...run, id: "run_big", last_seq: big.length }], selectedRunId: "run_big" });
    const start = performance.now();
    act(() => store.getState().applyEvents(big));
    render(
      <ServicesProvider value={{ api: createApi({ fetch: vi.fn() }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
        <RunView />
      </ServicesProvider>,
    );
    const ms = performance.now() - start;
    const transcript = screen.getByRole("region", { name: "Transcript" });
    const cards = transcript.querySelectorAll("[data-testid=tool-card], [data-testid=llm-message]");
    expect(cards.length).toBeGreaterThan(0);
    expect(cards.length).toBeLessThan(60);
    // The end is in view: the last model call's turn.
    expect(transcript.querySelector('[data-node-id="t499_2"]')).toBeTruthy();
    // jsdom is far slower than a browser; this only guards against a
    // render of every card.
    expect(ms).toBeLessThan(5000);
  });

  it("offers Jump to latest once scrolled up, and follows again from it", () => {
    vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockImplementation(function (this: HTMLElement) {
      return this.classList.contains("vlist") ? 400 : 0;
    });
    vi.spyOn(HTMLElement.prototype, "scrollHeight", "get").mockImplementation(function (this: HTMLElement) {
      return this.classList.contains("vlist") ? 100_000 : 0;
    });
    const { transcript } = setup();
    expect(screen.queryByTestId("jump-latest")).toBeNull();
    const list = within(transcript).getByLabelText("Transcript messages");
    list.scrollTop = 1_000;
    fireEvent.scroll(list);
    fireEvent.click(screen.getByTestId("jump-latest"));
    expect(list.scrollTop).toBe(100_000 - 400);
    fireEvent.scroll(list);
    expect(screen.queryByTestId("jump-latest")).toBeNull();
  });
});

describe("panes", () => {
  it("resize with the splitter's keys, and remember the share", () => {
    setup();
    const splitter = screen.getByTestId("splitter");
    expect(splitter.getAttribute("role")).toBe("separator");
    expect(splitter.getAttribute("aria-valuenow")).toBe("50");
    fireEvent.keyDown(splitter, { key: "ArrowRight" });
    fireEvent.keyDown(splitter, { key: "ArrowRight", shiftKey: true });
    expect(splitter.getAttribute("aria-valuenow")).toBe("62");
    fireEvent.keyDown(splitter, { key: "End" });
    expect(splitter.getAttribute("aria-valuenow")).toBe("80");
    expect(localStorage.getItem("steward.paneRatio")).toBe("80");
    cleanup();
    setup();
    expect(screen.getByTestId("splitter").getAttribute("aria-valuenow")).toBe("80");
  });

  it("maximise one pane, keep the controls and the header, and restore on Escape", () => {
    setup();
    fireEvent.click(screen.getByTestId("maximise-graph"));
    expect(screen.queryByRole("region", { name: "Transcript" })).toBeNull();
    expect(screen.getByRole("region", { name: "Graph" })).toBeTruthy();
    expect(screen.getByRole("group", { name: "Run controls" })).toBeTruthy();
    expect(screen.queryByTestId("splitter")).toBeNull();
    expect(screen.getByTestId("maximise-graph").getAttribute("aria-pressed")).toBe("true");
    fireEvent.keyDown(document.body, { key: "Escape" });
    expect(screen.getByRole("region", { name: "Transcript" })).toBeTruthy();
    fireEvent.click(screen.getByTestId("maximise-transcript"));
    expect(screen.queryByRole("region", { name: "Graph" })).toBeNull();
    fireEvent.click(screen.getByTestId("maximise-transcript"));
    expect(screen.getByRole("region", { name: "Graph" })).toBeTruthy();
  });
});

describe("the outcome of a run", () => {
  const ended = (last: "succeeded" | "failed"): Omit<Event, "run_id" | "seq" | "ts">[] => [
    { type: "run.status", data: { status: "running" } },
    { type: "node.started", node_id: "u", data: { kind: "user", label: "instructions", text: "Fix it" } },
    { type: "node.started", node_id: "m1", data: { kind: "llm", label: "model call 1" } },
    { type: "node.finished", node_id: "m1", data: { status: "succeeded", duration_ms: 5, text: "Two edits." } },
    { type: "node.started", node_id: "e1", data: { kind: "tool", label: "edit_file", tool: "edit_file", parent: "m1", arguments: {}, after: ["m1"] } },
    { type: "node.finished", node_id: "e1", data: { status: "succeeded", duration_ms: 2, output: "replaced" } },
    { type: "node.started", node_id: "e2", data: { kind: "tool", label: "edit_file", tool: "edit_file", parent: "m1", arguments: {}, after: ["m1"] } },
    { type: "node.finished", node_id: "e2", data: { status: last, duration_ms: 2, output: last === "failed" ? "old_string is not in a.txt" : "replaced", is_error: last === "failed", code: last === "failed" ? "no_match" : undefined } },
    { type: "node.started", node_id: "m2", data: { kind: "llm", label: "model call 2", after: ["e1", "e2"] } },
    { type: "node.finished", node_id: "m2", data: { status: "succeeded", duration_ms: 5, text: "All done!" } },
    { type: "run.status", data: { status: "completed" } },
  ];

  it("does not show a plain success right after calls that did not succeed", () => {
    setup(ended("failed"));
    const outcome = screen.getByRole("status", { name: "" });
    expect(outcome.className).toContain("outcome-completed-missed");
    expect(screen.getByTestId("outcome-missed").textContent).toBe(" — 1 of its last 2 tool calls did not succeed; read what the model made of it.");
  });

  it("is a plain success when the last calls succeeded", () => {
    setup(ended("succeeded"));
    expect(screen.queryByTestId("outcome-missed")).toBeNull();
    expect(document.querySelector(".outcome-completed")).toBeTruthy();
  });
});

describe("lastTurnCalls", () => {
  const run = (evs: Omit<Event, "run_id" | "seq" | "ts">[]) =>
    reduceRunBatch(
      emptyTranscript("r"),
      evs.map((e, i) => ({ ...e, run_id: "r", seq: i + 1, ts: 0 })),
    );
  const call = (id: string, parent: string, status: string, retryOf?: string): Omit<Event, "run_id" | "seq" | "ts">[] => [
    { type: "node.started", node_id: id, data: { kind: "tool", label: "t", tool: "t", parent, arguments: {}, after: [parent], retry_of: retryOf } },
    { type: "node.finished", node_id: id, data: { status, duration_ms: 1 } },
  ];
  const model = (id: string, after: string[] = []): Omit<Event, "run_id" | "seq" | "ts">[] => [
    { type: "node.started", node_id: id, data: { kind: "llm", label: id, after } },
    { type: "node.finished", node_id: id, data: { status: "succeeded", duration_ms: 1 } },
  ];

  it("counts only the last turn's calls, a retried call as its retry", () => {
    const t = run([
      ...model("m1"),
      ...call("a", "m1", "failed"),
      ...call("b", "m1", "failed"),
      ...model("m2", ["a", "b"]),
      ...call("c", "m2", "succeeded"),
      ...call("d", "m2", "interrupted"),
      ...call("d2", "m2", "succeeded", "d"),
      ...model("m3", ["c", "d2"]),
    ]);
    expect(lastTurnCalls(t)).toEqual({ total: 2, failed: 0 });
  });

  it("says a failed retry failed, and a run with no calls has no last turn", () => {
    const t = run([...model("m1"), ...call("a", "m1", "interrupted"), ...call("a2", "m1", "failed", "a"), ...model("m2", ["a2"])]);
    expect(lastTurnCalls(t)).toEqual({ total: 1, failed: 1 });
    expect(lastTurnCalls(run(model("m1")))).toBeUndefined();
  });
});

describe("a long run's end, shown first", () => {
  it("says that only the end is in, and gives way to the whole run", () => {
    const log = bigRunEvents({ turns: 30, runId: run.id });
    const from = log.length - 40;
    const store = createAppStore({ runs: [{ ...run, last_seq: log.length }], selectedRunId: run.id });
    store.getState().setTranscript(reduceRunBatch({ ...emptyTranscript(run.id), tailFrom: from }, log.slice(from)));
    render(
      <ServicesProvider value={{ api: createApi({ fetch: vi.fn() }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
        <RunView />
      </ServicesProvider>,
    );
    const transcript = screen.getByRole("region", { name: "Transcript" });
    expect(transcript.dataset.history).toBe("tail");
    expect(screen.getByTestId("history-tail").textContent).toBe(`The run's last 40 events; reading the ${from.toLocaleString("en")} before them…`);
    act(() => store.getState().setTranscript(reduceRunBatch(emptyTranscript(run.id), log)));
    expect(transcript.dataset.history).toBe("whole");
    expect(screen.queryByTestId("history-tail")).toBeNull();
  });
});
