import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { CommandType, Event, Run } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { RunView } from "../transcript/RunView";

afterEach(cleanup);

const baseRun = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "running", instructions: "Write hello.txt",
  workspace: "/ws", mode: "ask", provider: "script", model: "", demo: true, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["pause", "steer", "cancel", "fork"],
} satisfies Run;

const created = {
  agent: { id: "ag_1", name: "demo", provider: "script", model: "", demo: true },
  instructions: "Write hello.txt", workspace: "/ws", mode: "ask", max_steps: 10,
};

type Sent = { runId: string; body: Record<string, unknown> };

// setup renders the selected run's view over a store holding `run` and the
// events, with a server that answers each command with answer(body).
function setup(run: Run, events: Omit<Event, "run_id" | "seq" | "ts">[], answer: (b: Record<string, unknown>) => unknown = () => ({ status: "accepted" })) {
  const sent: Sent[] = [];
  const fetchFake = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const m = /\/runs\/([^/]+)\/commands$/.exec(String(input));
    if (!m) return new Response("{}", { status: 404 });
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    sent.push({ runId: m[1]!, body });
    return Response.json({ command_id: body["command_id"], ...(answer(body) as object) });
  });
  const store = createAppStore({ runs: [{ ...run, last_seq: events.length }], selectedRunId: run.id });
  const services: Services = {
    api: createApi({ fetch: fetchFake as unknown as typeof fetch }),
    store,
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  events.forEach((e, i) => store.getState().applyEvent({ run_id: run.id, seq: i + 1, ts: i, ...e }));
  render(
    <ServicesProvider value={services}>
      <RunView />
    </ServicesProvider>,
  );
  return { sent, store, services };
}

const button = (name: string) => screen.getByRole("button", { name }) as HTMLButtonElement;

const running: Omit<Event, "run_id" | "seq" | "ts">[] = [
  { type: "run.created", data: created },
  { type: "run.status", data: { status: "running" } },
  { type: "node.started", node_id: "n1", data: { kind: "agent", label: "demo" } },
  { type: "node.started", node_id: "n2", data: { kind: "user", label: "instructions", text: "Write hello.txt" } },
  { type: "node.finished", node_id: "n2", data: { status: "succeeded", duration_ms: 0 } },
  { type: "node.started", node_id: "n3", data: { kind: "llm", label: "model call 1" } },
];

function pausedAt(next: object, caps: CommandType[]): { run: Run; events: Omit<Event, "run_id" | "seq" | "ts">[] } {
  return {
    run: { ...baseRun, status: "paused", reason: "paused by the user", next, capabilities: caps } as Run,
    events: [
      ...running,
      { type: "node.finished", node_id: "n3", data: { status: "succeeded", duration_ms: 700, text: "Let me look." } },
      { type: "run.status", data: { status: "pausing", reason: "pause asked" } },
      { type: "run.status", data: { status: "paused", reason: "paused by the user", next } },
    ],
  };
}

describe("run controls", () => {
  it("enables only the commands in the run's capabilities and says why the others are off", () => {
    setup(baseRun, running);
    expect(button("Pause").disabled).toBe(false);
    expect(button("Cancel run").disabled).toBe(false);
    expect(button("Continue").disabled).toBe(true);
    expect(button("Continue").title).toBe("Continue needs a paused run; this one is running");
    expect(button("Step").disabled).toBe(true);
    expect(button("Step").title).toBe("Step needs a paused run; this one is running");
    expect(screen.getByRole("textbox", { name: "Steer message" })).toBeTruthy();
  });

  it("offers Continue and Step on a paused run, and not Pause", () => {
    const { run, events } = pausedAt({ kind: "model" }, ["continue", "step", "steer", "cancel", "fork"]);
    setup(run, events);
    expect(screen.getByTestId("run-status").textContent).toBe("paused");
    expect(button("Continue").disabled).toBe(false);
    expect(button("Step").disabled).toBe(false);
    expect(button("Pause").disabled).toBe(true);
    expect(button("Pause").title).toBe("The run is already paused");
  });

  it("hides the commands a finished run cannot take, and the steer box, and keeps fork and export", () => {
    setup({ ...baseRun, status: "completed", capabilities: ["fork"] }, [
      ...running,
      { type: "node.finished", node_id: "n3", data: { status: "succeeded", duration_ms: 700, text: "Done." } },
      { type: "run.status", data: { status: "completed" } },
    ]);
    for (const name of ["Pause", "Continue", "Step", "Cancel run"]) {
      expect(screen.queryByRole("button", { name })).toBeNull();
    }
    expect(screen.getByRole("button", { name: "Keyboard shortcuts" })).toBeTruthy();
    expect(screen.getByTestId("export-button")).toBeTruthy();
    expect(screen.queryByRole("textbox", { name: "Steer message" })).toBeNull();
    expect(screen.getAllByRole("button", { name: "Fork from here" }).length).toBe(2); // instructions and model call
  });

  const completed: Omit<Event, "run_id" | "seq" | "ts">[] = [
    ...running,
    { type: "node.finished", node_id: "n3", data: { status: "succeeded", duration_ms: 700, text: "Done." } },
    { type: "node.finished", node_id: "n1", data: { status: "succeeded", duration_ms: 700 } },
    { type: "run.status", data: { status: "completed" }, capabilities: ["fork", "follow_up", "replay"] },
  ];

  it("offers a finished run a follow-up in place of the steer box, and sends it", async () => {
    const { sent, store } = setup({ ...baseRun, status: "completed", capabilities: ["fork", "follow_up"] }, completed);
    expect(screen.queryByRole("textbox", { name: "Steer message" })).toBeNull();
    const box = screen.getByRole("textbox", { name: "Follow-up message" }) as HTMLTextAreaElement;
    expect(box.placeholder).toContain("Continue this run");
    expect(button("Send follow-up").disabled).toBe(true); // nothing typed yet
    fireEvent.change(box, { target: { value: "Now add a test." } });
    fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]!.body).toEqual({ command_id: expect.any(String), type: "follow_up", text: "Now add a test." });
    await waitFor(() => expect(box.value).toBe(""));
    // The new turn arrives: the run runs again, the steer box is back, and
    // the message shows in the transcript as a follow-up.
    const turn: Omit<Event, "run_id" | "seq" | "ts">[] = [
      { type: "run.status", data: { status: "running", reason: "follow-up" }, capabilities: ["pause", "steer", "cancel", "fork"] },
      { type: "node.started", node_id: "n4", data: { kind: "agent", label: "demo · turn 2" } },
      { type: "node.started", node_id: "n5", data: { kind: "user", parent: "n4", label: "follow-up", text: "Now add a test." } },
    ];
    act(() => turn.forEach((e, i) => store.getState().applyEvent({ run_id: "run_1", seq: completed.length + i + 1, ts: 100 + i, ...e })));
    expect(screen.getByRole("textbox", { name: "Steer message" })).toBeTruthy();
    expect(screen.queryByRole("textbox", { name: "Follow-up message" })).toBeNull();
    expect(button("Pause").disabled).toBe(false);
  });

  it("says why a finished run takes no follow-up, and shows a refusal", async () => {
    setup({ ...baseRun, status: "completed", capabilities: ["fork"], refusals: { follow_up: { code: "invalid_state", message: "run run_1 is a replay: fork it" } } }, completed.slice(0, -1).concat([
      { type: "run.status", data: { status: "completed" } },
    ]));
    const box = screen.getByRole("textbox", { name: "Follow-up message" });
    fireEvent.change(box, { target: { value: "more" } });
    expect(button("Send follow-up").disabled).toBe(true);
    expect(button("Send follow-up").title).toBe("run run_1 is a replay: fork it");
    cleanup();
    setup({ ...baseRun, status: "completed", capabilities: ["fork", "follow_up"] }, completed, () => ({
      status: "rejected", code: "invalid_state", message: "budget: max_steps 1 reached; the budgets count every turn of the run: follow up with higher limits",
    }));
    fireEvent.change(screen.getByRole("textbox", { name: "Follow-up message" }), { target: { value: "more" } });
    fireEvent.click(button("Send follow-up"));
    expect((await screen.findByRole("alert")).textContent).toContain("budget: max_steps 1 reached");
  });

  it("goes by the capabilities, not by the status the stream shows", () => {
    // The stream says paused; the REST copy, not refetched yet, says running.
    const { events } = pausedAt({ kind: "model" }, []);
    const { store } = setup(baseRun, events);
    act(() => store.getState().setRun({ ...baseRun, last_seq: 5 }));
    expect(screen.getByTestId("run-status").textContent).toBe("paused");
    expect(button("Pause").disabled).toBe(false);
    expect(button("Continue").disabled).toBe(true);
    expect(button("Continue").title).toBe("Continue needs a paused run; this one is running");
    act(() => store.getState().setRun({ ...baseRun, status: "paused", updated_at: 2, last_seq: events.length, capabilities: ["continue", "step", "steer", "cancel", "fork"] }));
    expect(button("Continue").disabled).toBe(false);
    expect(button("Pause").disabled).toBe(true);
    // An older answer arriving late changes nothing.
    act(() => store.getState().setRun({ ...baseRun, last_seq: 5 }));
    expect(button("Continue").disabled).toBe(false);
  });

  it("follows the capabilities and reasons a run.status carries, ahead of the REST copy", () => {
    // The REST copy, not fetched again, says running; the stream's run.status
    // says paused on an interrupted call, and what the server allows then.
    const next = { kind: "tool", node_id: "n7", tool: "write_file", arguments: { path: "a.txt" }, interrupted: true };
    setup(baseRun, [
      ...running,
      { type: "node.finished", node_id: "n3", data: { status: "succeeded", duration_ms: 700, text: "Let me look." } },
      {
        type: "run.status",
        data: { status: "paused", reason: "interrupted", next },
        capabilities: ["retry", "skip", "steer", "cancel", "fork", "break", "unbreak"],
        refusals: {
          continue: { code: "invalid_state", message: "write_file (node n7) was interrupted: retry it, skip it or cancel the run" },
          pause: { code: "invalid_state", message: "the run is already paused" },
        },
      },
    ]);
    expect(screen.getByTestId("run-status").textContent).toBe("paused");
    expect(button("Pause").disabled).toBe(true);
    expect(button("Continue").disabled).toBe(true);
    expect(button("Continue").title).toBe("write_file (node n7) was interrupted: retry it, skip it or cancel the run");
    expect(within(screen.getByRole("region", { name: "Paused" })).getByRole("button", { name: "Retry call" })).toBeTruthy();
  });

  it("sends pause with a fresh command id", async () => {
    const { sent } = setup(baseRun, running);
    fireEvent.click(button("Pause"));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({ runId: "run_1", body: { command_id: expect.stringMatching(/^[0-9a-f-]{36}$/), type: "pause" } });
  });

  it("sends a steer message with its text and clears the box once accepted", async () => {
    const { sent } = setup(baseRun, running);
    const box = screen.getByRole("textbox", { name: "Steer message" }) as HTMLTextAreaElement;
    expect(button("Send steer").disabled).toBe(true); // nothing typed yet
    fireEvent.change(box, { target: { value: "Use British spelling." } });
    fireEvent.click(button("Send steer"));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]!.body).toEqual({ command_id: expect.any(String), type: "steer", text: "Use British spelling." });
    await waitFor(() => expect(box.value).toBe(""));
  });

  it("shows a rejected command's message", async () => {
    setup(baseRun, running, () => ({ status: "rejected", code: "invalid_state", message: "the run is already paused" }));
    fireEvent.click(button("Pause"));
    expect((await screen.findByRole("alert")).textContent).toBe("the run is already paused");
  });

  it("shows a steer message in the transcript, labelled Steer, where it came in", () => {
    setup(baseRun, [
      ...running,
      { type: "node.finished", node_id: "n3", data: { status: "succeeded", duration_ms: 700, text: "Let me look." } },
      { type: "node.started", node_id: "n4", data: { kind: "user", label: "steer", text: "Use British spelling." } },
      { type: "node.finished", node_id: "n4", data: { status: "succeeded", duration_ms: 0 } },
      { type: "node.started", node_id: "n5", data: { kind: "llm", label: "model call 2" } },
    ]);
    const transcript = screen.getByRole("region", { name: "Transcript" });
    const steer = within(transcript).getByTestId("steer-message");
    expect(steer.textContent).toContain("Steer");
    expect(steer.textContent).toContain("Use British spelling.");
    const order = Array.from(transcript.querySelectorAll("[data-testid=llm-message], [data-testid=steer-message]")).map(
      (el) => el.getAttribute("data-node-id") ?? "steer",
    );
    expect(order).toEqual(["n3", "steer", "n5"]);
  });
});

describe("paused banner", () => {
  it("says why the run paused and which tool runs next, with its arguments", () => {
    const { run, events } = pausedAt({ kind: "tool", tool: "list_dir", arguments: { path: "." } }, ["continue", "step", "steer", "cancel", "fork"]);
    setup(run, events);
    const banner = screen.getByRole("region", { name: "Paused" });
    expect(banner.textContent).toContain("Paused: paused by the user");
    expect(banner.textContent).toContain("Next: list_dir");
    expect(within(banner).getByText(/"path": "."/)).toBeTruthy();
    expect(within(banner).queryByRole("button", { name: "Retry call" })).toBeNull();
  });

  it("says a model call comes next", () => {
    const { run, events } = pausedAt({ kind: "model" }, ["continue", "step", "steer", "cancel", "fork"]);
    setup(run, events);
    expect(screen.getByRole("region", { name: "Paused" }).textContent).toContain("Next: model call");
  });

  it("shows pausing while the run goes to its next safe point", () => {
    setup({ ...baseRun, status: "pausing", capabilities: ["steer", "cancel", "fork"] }, [
      ...running,
      { type: "run.status", data: { status: "pausing", reason: "pause asked" } },
    ]);
    expect(screen.getByTestId("run-status").textContent).toBe("pausing");
    expect(screen.getByRole("region", { name: "Pausing" })).toBeTruthy();
    expect(button("Pause").title).toBe("A pause was asked: the run stops at its next safe point");
  });

  it("offers Retry call and Skip call for an interrupted call, with its node", async () => {
    const next = { kind: "tool", node_id: "n7", tool: "write_file", arguments: { path: "a.txt" }, interrupted: true };
    const { run, events } = pausedAt(next, ["retry", "skip", "steer", "cancel", "fork"]);
    const { sent } = setup(run, events);
    const banner = screen.getByRole("region", { name: "Paused" });
    expect(banner.textContent).toContain("Next: write_file");
    expect(button("Continue").disabled).toBe(true);
    expect(button("Continue").title).toBe("The next tool call was interrupted: retry it or skip it first");
    fireEvent.click(within(banner).getByRole("button", { name: "Retry call" }));
    await waitFor(() => expect(sent).toHaveLength(1));
    const skip = within(banner).getByRole("button", { name: "Skip call" }) as HTMLButtonElement;
    await waitFor(() => expect(skip.disabled).toBe(false)); // one command at a time
    fireEvent.click(skip);
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent.map((s) => s.body)).toEqual([
      { command_id: expect.any(String), type: "retry", node_id: "n7" },
      { command_id: expect.any(String), type: "skip", node_id: "n7" },
    ]);
  });
});

describe("keyboard shortcuts", () => {
  it("p pauses or continues, s steps, but not while typing; ? shows the help", async () => {
    const { run, events } = pausedAt({ kind: "model" }, ["continue", "step", "steer", "cancel", "fork"]);
    const { sent } = setup(run, events);
    fireEvent.keyDown(screen.getByRole("textbox", { name: "Steer message" }), { key: "p" });
    fireEvent.keyDown(screen.getByTestId("transcript-search"), { key: "s" });
    fireEvent.keyDown(document.body, { key: "p", ctrlKey: true });
    expect(sent).toHaveLength(0);
    fireEvent.keyDown(document.body, { key: "p" });
    await waitFor(() => expect(sent).toHaveLength(1));
    await waitFor(() => expect(button("Step").disabled).toBe(false)); // one command at a time
    fireEvent.keyDown(document.body, { key: "s" });
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent.map((s) => s.body["type"])).toEqual(["continue", "step"]);

    expect(screen.queryByRole("dialog", { name: "Keyboard shortcuts" })).toBeNull();
    fireEvent.keyDown(document.body, { key: "?" });
    expect(screen.getByRole("dialog", { name: "Keyboard shortcuts" }).textContent).toContain("Pause, or continue a paused run");
    expect(screen.getByTestId("shortcuts-dialog")).toBeTruthy();
    fireEvent.keyDown(document.body, { key: "Escape" });
    expect(screen.queryByRole("dialog", { name: "Keyboard shortcuts" })).toBeNull();
  });

  it("c asks before it cancels, and cancels only once confirmed", async () => {
    const { sent } = setup(baseRun, running);
    fireEvent.keyDown(document.body, { key: "c" });
    const dialog = screen.getByRole("dialog", { name: "Cancel this run?" });
    expect(sent).toHaveLength(0);
    // Shortcuts do not act behind the dialog; Escape in it closes it.
    fireEvent.keyDown(dialog, { key: "p" });
    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(screen.queryByRole("dialog", { name: "Cancel this run?" })).toBeNull();
    expect(sent).toHaveLength(0);
    fireEvent.keyDown(document.body, { key: "c" });
    fireEvent.click(screen.getByTestId("confirm-cancel"));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]!.body["type"]).toBe("cancel");
  });

  it("g, t and b choose the panes and / focuses the transcript's search", () => {
    const { store } = setup(baseRun, running);
    fireEvent.keyDown(document.body, { key: "g" });
    expect(store.getState().runView.pane).toBe("graph");
    expect(screen.queryByRole("region", { name: "Transcript" })).toBeNull();
    fireEvent.keyDown(document.body, { key: "t" });
    expect(store.getState().runView.pane).toBe("transcript");
    expect(screen.queryByRole("region", { name: "Graph" })).toBeNull();
    fireEvent.keyDown(document.body, { key: "b" });
    expect(store.getState().runView.pane).toBe("both");
    fireEvent.keyDown(document.body, { key: "/" });
    expect(document.activeElement).toBe(screen.getByTestId("transcript-search"));
    // Typed into the search box, the letters are text, not shortcuts.
    fireEvent.keyDown(document.activeElement!, { key: "g" });
    expect(store.getState().runView.pane).toBe("both");
  });

  it("f forks from the node selected in the graph, and says what to do without one", async () => {
    const { run, events } = pausedAt({ kind: "model" }, ["continue", "step", "steer", "cancel", "fork"]);
    const { sent, store } = setup(run, events, (b) => (b["type"] === "fork" ? { status: "accepted", fork: "run_f" } : { status: "accepted" }));
    fireEvent.keyDown(document.body, { key: "f" });
    expect(screen.getByRole("status").textContent).toContain("Select a finished node in the graph first");
    expect(sent).toHaveLength(0);
    act(() => store.getState().selectNode("n3"));
    fireEvent.keyDown(document.body, { key: "f" });
    fireEvent.click(within(screen.getByRole("dialog", { name: "Fork from here" })).getByRole("button", { name: "Fork" }));
    await waitFor(() => expect(store.getState().selectedRunId).toBe("run_f"));
    expect(sent[0]!.body).toEqual({ command_id: expect.any(String), type: "fork", node_id: "n3", files: "keep" });
  });
});

describe("fork", () => {
  it("forks from a finished node and selects the new run", async () => {
    const { run, events } = pausedAt({ kind: "model" }, ["continue", "step", "steer", "cancel", "fork"]);
    const { sent, store, services } = setup(run, events, (b) => (b["type"] === "fork" ? { status: "accepted", fork: "run_f" } : { status: "accepted" }));
    const llm = screen.getByTestId("llm-message");
    fireEvent.click(within(llm).getByRole("button", { name: "Fork from here" }));
    // The dialog asks what becomes of the files; nothing is sent before.
    const dialog = screen.getByRole("dialog", { name: "Fork from here" });
    expect(sent).toHaveLength(0);
    expect((within(dialog).getByRole("radio", { name: /Keep the files as they are/ }) as HTMLInputElement).checked).toBe(true);
    fireEvent.click(within(dialog).getByRole("radio", { name: /Put the files back as they were/ }));
    fireEvent.click(within(dialog).getByRole("button", { name: "Fork" }));
    await waitFor(() => expect(store.getState().selectedRunId).toBe("run_f"));
    expect(sent[0]!.body).toEqual({ command_id: expect.any(String), type: "fork", node_id: "n3", files: "restore" });
    expect(services.refreshLists).toHaveBeenCalled();
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("says why the files could not be put back, and keeps the dialog open", async () => {
    const { run, events } = pausedAt({ kind: "model" }, ["continue", "step", "steer", "cancel", "fork"]);
    const message = "the files cannot be put back as they were at node n3, and no fork was made: nothing was changed: b.txt: changed on disk since the run left it";
    const { sent, store } = setup(run, events, (b) => (b["type"] === "fork" ? { status: "rejected", code: "files_conflict", message } : { status: "accepted" }));
    fireEvent.click(within(screen.getByTestId("llm-message")).getByRole("button", { name: "Fork from here" }));
    const dialog = screen.getByRole("dialog", { name: "Fork from here" });
    fireEvent.click(within(dialog).getByRole("radio", { name: /Put the files back/ }));
    fireEvent.click(within(dialog).getByRole("button", { name: "Fork" }));
    await waitFor(() => expect(within(dialog).getByTestId("fork-error").textContent).toContain("b.txt"));
    expect(sent).toHaveLength(1);
    expect(store.getState().selectedRunId).toBe("run_1");
  });

  it("has no fork button on a node still running", () => {
    setup(baseRun, running);
    expect(within(screen.getByTestId("llm-message")).queryByRole("button", { name: "Fork from here" })).toBeNull();
    expect(screen.getAllByRole("button", { name: "Fork from here" })).toHaveLength(1); // the instructions
  });

  it("links a fork to its source and the source to its forks", () => {
    const { store } = setup({ ...baseRun, id: "run_f", status: "paused", forked_from: "run_1", capabilities: ["continue", "step", "steer", "cancel", "fork"] }, [
      { type: "run.created", data: { ...created, forked_from: { run_id: "run_1", node_id: "n3" }, history: [{ role: "user", text: "Write hello.txt" }] } },
      { type: "run.status", data: { status: "paused", reason: "forked from run_1 at n3", next: { kind: "model" } } },
    ]);
    expect(screen.getByText(/Fork of/).textContent).toBe("Fork of run_1 at n3");
    expect(screen.getByRole("region", { name: "Paused" }).textContent).toContain("Paused: forked from run_1 at n3");
    expect(screen.getByTestId("fork-history").textContent).toContain("1 message");

    fireEvent.click(screen.getByRole("button", { name: "Open run run_1" }));
    expect(store.getState().selectedRunId).toBe("run_1");
    act(() => store.getState().applyEvent({ run_id: "run_1", seq: 1, ts: 0, type: "run.forked", data: { node_id: "n3", fork: "run_f" } }));
    expect(screen.getByText(/Forks:/).textContent).toBe("Forks: run_f at n3");
  });

  it("names, and does not link, runs that are not on this machine, and says what the fork did with the files", async () => {
    // An imported recording: its source and its forks are another
    // machine's runs, which the server does not know (404).
    setup({ ...baseRun, id: "run_imp", imported_from: "run_far_fork", forked_from: "run_far_src", capabilities: ["fork"] }, [
      { type: "run.created", data: { ...created, forked_from: { run_id: "run_far_src", node_id: "n3" }, fork_files: { choice: "restore", op: "restore_9", restored: 2 } } },
      { type: "run.forked", data: { node_id: "n3", fork: "run_far_fork2" } },
    ]);
    const lineage = () => document.querySelector(".lineage") as HTMLElement;
    await waitFor(() => expect(within(lineage()).getAllByTestId("run-elsewhere").map((e) => e.textContent)).toEqual([
      "run run_far_src (not on this machine)",
      "run run_far_fork2 (not on this machine)",
    ]));
    expect(screen.queryByRole("button", { name: "Open run run_far_src" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Open run run_far_fork2" })).toBeNull();
    expect(screen.getByTestId("fork-files").textContent).toContain("files put back as they were at n3 (2 files; undo restore_9 in the files of run_far_src");
  });
});

describe("model retries and retried calls", () => {
  it("shows failed attempts on the model call and only the new attempt's text", () => {
    setup(baseRun, [
      ...running,
      { type: "llm.delta", node_id: "n3", data: { text: "Half an ans" } },
      { type: "llm.attempt", node_id: "n3", data: { attempt: 1, kind: "rate_limited", error: "429 Too Many Requests", retry_in_ms: 1000 } },
      { type: "llm.delta", node_id: "n3", data: { text: "A whole answer." } },
    ]);
    const llm = screen.getByTestId("llm-message");
    expect(within(llm).getByRole("list", { name: "Failed attempts" }).textContent).toBe(
      "attempt 1 failed: rate_limited 429 Too Many Requests … retrying in 1.0 s",
    );
    expect(within(llm).getByTestId("llm-text").textContent).toBe("A whole answer.");
  });

  it("marks a retried tool call with the node it replaces", () => {
    setup(baseRun, [
      ...running,
      { type: "node.started", node_id: "n9", data: { kind: "tool", label: "write_file", tool: "write_file", arguments: {}, risk: "write", retry_of: "n7" } },
      { type: "tool.executing", node_id: "n9", data: {} },
    ]);
    const card = screen.getByTestId("tool-card");
    expect(card.dataset["status"]).toBe("running");
    expect(within(card).getByText("retry of n7")).toBeTruthy();
  });
});
