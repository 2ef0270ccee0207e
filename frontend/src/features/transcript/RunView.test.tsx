import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, Run } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { RunView } from "./RunView";

afterEach(cleanup);

const run = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "running", instructions: "Tidy up",
  workspace: "/ws", mode: "edits", provider: "script", model: "", demo: true, unattended: true,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["pause", "steer", "cancel", "fork"],
} satisfies Run;

const question = { text: "Which colour?", options: [{ label: "red" }, { label: "blue" }] };

const events: Omit<Event, "run_id" | "seq" | "ts">[] = [
  { type: "run.created", data: { agent: { id: "ag_1", name: "demo", provider: "script", model: "", demo: true }, instructions: "Tidy up", workspace: "/ws", mode: "edits", max_steps: 9, unattended: true } },
  { type: "run.status", data: { status: "running" } },
  { type: "node.started", node_id: "n_plan", data: { kind: "tool", label: "update_plan", tool: "update_plan", arguments: {}, risk: "read" } },
  { type: "policy.decided", node_id: "n_plan", data: { effect: "allow", reason: "read tools run" } },
  { type: "run.plan", node_id: "n_plan", data: { steps: [{ title: "Look around", status: "done" }, { title: "Write notes", status: "in_progress" }, { title: "Check", status: "pending" }] } },
  { type: "node.started", node_id: "n_w", data: { kind: "tool", label: "write_file", tool: "write_file", arguments: { path: "a.txt" }, risk: "write" } },
  { type: "policy.decided", node_id: "n_w", data: { effect: "ask", reason: "write needs approval" } },
  { type: "approval.requested", node_id: "n_w", data: { interaction_id: "ia_1", tool: "write_file", arguments: { path: "a.txt" }, risk: "write", reason: "ask" } },
  { type: "approval.decided", node_id: "n_w", data: { interaction_id: "ia_1", decision: "approve", source: "web", scope: "run", grant_id: "gr_ia_1", arguments: { path: "b.txt" } } },
  { type: "node.started", node_id: "n_rm", data: { kind: "tool", label: "delete_file", tool: "delete_file", arguments: { path: "c.txt" }, risk: "destructive" } },
  { type: "approval.requested", node_id: "n_rm", data: { interaction_id: "ia_2", tool: "delete_file", arguments: { path: "c.txt" }, risk: "destructive", reason: "ask", expires_at: 5, default_decision: "deny" } },
  { type: "approval.decided", node_id: "n_rm", data: { interaction_id: "ia_2", decision: "deny", source: "timeout" } },
  { type: "node.started", node_id: "n_ask", data: { kind: "tool", label: "ask_user", tool: "ask_user", arguments: question, risk: "read" } },
  { type: "approval.requested", node_id: "n_ask", data: { interaction_id: "ia_3", kind: "question", tool: "ask_user", arguments: question, risk: "read", reason: "", question } },
  { type: "approval.decided", node_id: "n_ask", data: { interaction_id: "ia_3", decision: "answer", source: "web", choices: ["blue"] } },
  { type: "node.started", node_id: "n_ans", data: { kind: "user", label: "answer", text: "blue", answer_to: "n_ask" } },
];

function setup(evs = events, r: Run = run) {
  const store = createAppStore({ runs: [{ ...r, last_seq: evs.length }], selectedRunId: r.id });
  evs.forEach((e, i) => store.getState().applyEvent({ run_id: r.id, seq: i + 1, ts: Date.now(), ...e }));
  render(
    <ServicesProvider value={{ api: createApi({ fetch: vi.fn() }), store, refreshLists: vi.fn(), refreshRun: vi.fn() }}>
      <RunView />
    </ServicesProvider>,
  );
}

describe("RunView", () => {
  it("shows the run's permission mode in its header", () => {
    setup();
    expect(screen.getByTestId("mode-badge").textContent).toBe("edits mode · unattended");
  });

  it("shows the latest plan with a marker per step", () => {
    setup();
    const plan = screen.getByTestId("plan-panel");
    expect(within(plan).getByText("1 of 3 done")).toBeTruthy();
    // Folded, it is one line that says the step in progress.
    expect(within(plan).queryAllByTestId("plan-step")).toHaveLength(0);
    expect(plan.textContent).toContain("now: Write notes");
    fireEvent.click(within(plan).getByTestId("plan-toggle"));
    const steps = within(plan).getAllByTestId("plan-step");
    expect(steps.map((s) => [s.textContent, s.dataset["status"]])).toEqual([
      ["✓Look around", "done"],
      ["◐Write notes", "in_progress"],
      ["○Check", "pending"],
    ]);
    expect(within(plan).getByRole("img", { name: "in progress" })).toBeTruthy();
  });

  it("shows no plan panel without a plan", () => {
    setup(events.slice(0, 2));
    expect(screen.queryByTestId("plan-panel")).toBeNull();
    expect(within(screen.getByTestId("decisions-panel")).getByText("No tool call decisions yet.")).toBeTruthy();
  });

  it("lists every decision, automatic and human, with the tool name", () => {
    setup();
    const rows = within(screen.getByTestId("decisions-panel")).getAllByTestId("decision-row");
    expect(rows.map((r) => [r.dataset["kind"], r.dataset["decision"], r.querySelector("code")?.textContent])).toEqual([
      ["policy", "allow", "update_plan"],
      ["policy", "ask", "write_file"],
      ["answer", "approve", "write_file"],
      ["answer", "deny", "delete_file"],
      ["answer", "answer", "ask_user"],
    ]);
    expect(rows[1]!.textContent).toContain("write needs approval");
    expect(rows[2]!.textContent).toContain("person (web)");
    expect(rows[2]!.textContent).toContain("always in this run");
    expect(rows[2]!.textContent).toContain("grant gr_ia_1");
    expect(within(rows[2]!).getByTestId("edited-marker").textContent).toBe("edited arguments");
    expect(rows[3]!.textContent).toContain("timed out: denied by default");
  });

  it("shows edited arguments, a timeout and a question's answer in the transcript", () => {
    setup();
    const transcript = screen.getByRole("region", { name: "Transcript" });
    const card = (tool: string) => transcript.querySelector<HTMLElement>(`article[data-tool="${tool}"]`)!;

    const write = card("write_file");
    expect(within(write).getByTestId("edited-args").textContent).toBe('arguments edited by the user:{\n  "path": "b.txt"\n}');
    expect(within(write).getByTestId("tool-decision").textContent).toBe("Approved (web), always in this run");

    expect(within(card("delete_file")).getByTestId("tool-decision").textContent).toBe("timed out: denied by default");

    const ask = card("ask_user");
    expect(within(ask).getByText("Which colour?")).toBeTruthy();
    expect(within(ask).getByTestId("tool-decision").textContent).toBe("Answered (web): blue");

    const answer = within(transcript).getByTestId("answer-message");
    expect(answer.dataset["answerTo"]).toBe("n_ask");
    expect(answer.querySelector(".msg-text")?.textContent).toBe("Answer: blue");
    expect(answer.textContent).toContain("Answer to “Which colour?”");
  });

  it("says a question that timed out got no answer", () => {
    setup([
      ...events.slice(0, 14),
      { type: "approval.decided", node_id: "n_ask", data: { interaction_id: "ia_3", decision: "deny", source: "timeout" } },
    ]);
    const ask = screen.getByRole("region", { name: "Transcript" }).querySelector<HTMLElement>('article[data-tool="ask_user"]')!;
    expect(within(ask).getByTestId("tool-decision").textContent).toBe("timed out: no answer");
    const rows = within(screen.getByTestId("decisions-panel")).getAllByTestId("decision-row");
    expect(rows.at(-1)!.textContent).toContain("timed out: no answer");
  });

  it("shows a declined question as declined, not failed", () => {
    setup([
      ...events.slice(0, 14),
      { type: "approval.decided", node_id: "n_ask", data: { interaction_id: "ia_3", decision: "deny", source: "web" } },
      { type: "node.finished", node_id: "n_ask", data: { status: "failed", is_error: true, code: "declined", output: "The user declined to answer." } },
    ]);
    const ask = screen.getByRole("region", { name: "Transcript" }).querySelector<HTMLElement>('article[data-tool="ask_user"]')!;
    expect(ask.querySelector(".tool-status")?.textContent).toBe("declined");
  });

  it("asks a waiting question on the ask_user card", () => {
    setup(events.slice(0, 14));
    const ask = screen.getByRole("region", { name: "Transcript" }).querySelector<HTMLElement>('article[data-tool="ask_user"]')!;
    expect(ask.dataset["status"]).toBe("waiting");
    expect(within(ask).getByText("waiting for an answer")).toBeTruthy();
    expect(within(ask).getAllByRole("radio")).toHaveLength(2);
    expect(within(ask).getByTestId("question-send")).toBeTruthy();
  });
});
