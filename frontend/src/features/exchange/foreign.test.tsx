import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Agent, Event, Info, Run } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { RunList } from "../runs/RunList";
import { RunView } from "../transcript/RunView";

afterEach(cleanup);

// A run imported from someone else's recording, as the server lists it.
const imported = {
  id: "run_imp", agent_id: "ag_theirs", agent_name: "theirs", status: "completed", instructions: "go",
  workspace: "/home/someone/project", mode: "auto", provider: "openai", model: "their-model", demo: false, unattended: true,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["fork", "replay"], imported_from: "run_far",
} satisfies Run;

const mine: Agent = {
  id: "ag_mine", name: "mine", description: "", provider: "openai", model: "my-model", system_prompt: "", tools: [],
  mode: "ask", max_steps: 10, created_at: 1, updated_at: 1, effective_provider: "openai", effective_model: "my-model", demo: false,
};

const events: Omit<Event, "run_id" | "seq" | "ts">[] = [
  { type: "run.created", data: { agent: { id: "ag_theirs", name: "theirs", provider: "openai", model: "their-model" }, instructions: "go", workspace: "/home/someone/project", mode: "auto", max_steps: 9 } },
  { type: "run.status", data: { status: "running" } },
  { type: "node.started", node_id: "n1", data: { kind: "agent", label: "theirs" } },
  { type: "node.started", node_id: "n2", data: { kind: "user", label: "instructions", text: "go" } },
  { type: "node.finished", node_id: "n2", data: { status: "succeeded", duration_ms: 0 } },
  { type: "node.started", node_id: "n3", data: { kind: "llm", label: "model call 1" } },
  { type: "node.finished", node_id: "n3", data: { status: "succeeded", duration_ms: 5, text: "Done." } },
  { type: "run.status", data: { status: "completed" } },
];

type Call = { url: string; method: string; body?: Record<string, unknown> };

function setup(run: Run, answer: (c: Call) => Response) {
  const calls: Call[] = [];
  const fetchFake = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const c = { url: String(input), method: init?.method ?? "GET", body: init?.body ? JSON.parse(String(init.body)) : undefined };
    calls.push(c);
    return answer(c);
  });
  const store = createAppStore({ runs: [{ ...run, last_seq: events.length }], selectedRunId: run.id });
  store.getState().setStatic({ version: "t", default_workspace: "/home/me/work", provider: "openai", demo: false, note: "" } as Info, [mine]);
  events.forEach((e, i) => store.getState().applyEvent({ ...e, run_id: run.id, seq: i + 1, ts: i }));
  const services: Services = {
    api: createApi({ fetch: fetchFake as unknown as typeof fetch }),
    store,
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(
    <ServicesProvider value={services}>
      <RunList />
      <RunView />
    </ServicesProvider>,
  );
  return { calls, store, posts: () => calls.filter((c) => c.method === "POST") };
}

const notFound = () => Response.json({ error: { code: "not_found", message: "no" } }, { status: 404 });

describe("an imported run", () => {
  it("says plainly that it is someone else's content", () => {
    setup(imported, notFound);
    expect(screen.getByTestId("imported-badge").textContent).toBe("imported: someone else's content");
    const notice = screen.getByTestId("imported-notice").textContent!;
    expect(notice).toContain("someone else's content");
    expect(notice).toContain("/home/someone/project");
    expect(notice).toContain("Nothing in it is used as a setting here");
    expect(screen.getByText(/someone else's recording/).textContent).toContain("run_far");
  });

  it("forks only with one of this machine's agents and a folder chosen", async () => {
    const { posts, store } = setup(imported, (c) =>
      c.url.endsWith("/commands") ? Response.json({ command_id: c.body!["command_id"], status: "accepted", fork: "run_f" }) : notFound(),
    );
    fireEvent.click(within(screen.getByTestId("llm-message")).getByRole("button", { name: "Fork from here" }));
    const dialog = screen.getByRole("dialog", { name: "Fork with one of your agents" });
    expect(within(dialog).getByTestId("fork-foreign").textContent).toContain("someone else's content");
    expect(posts()).toHaveLength(0); // nothing is sent before the person chooses
    // Its files were changed elsewhere: they cannot be put back here.
    expect(within(dialog).queryByRole("radio", { name: /Put the files back/ })).toBeNull();

    fireEvent.click(within(dialog).getByRole("button", { name: "Fork" }));
    expect(within(dialog).getByTestId("fork-error").textContent).toBe("Choose one of your agents.");
    fireEvent.change(within(dialog).getByLabelText("Agent"), { target: { value: "ag_mine" } });
    expect((within(dialog).getByLabelText("Workspace folder") as HTMLInputElement).value).toBe("/home/me/work");
    fireEvent.change(within(dialog).getByLabelText("Workspace folder"), { target: { value: "/home/me/fork-here" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Fork" }));

    await waitFor(() => expect(store.getState().selectedRunId).toBe("run_f"));
    expect(posts()[0]!.body).toEqual({ command_id: expect.any(String), type: "fork", node_id: "n3", files: "keep", agent: "ag_mine", workspace: "/home/me/fork-here" });
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("replays only with one of this machine's agents, in ask mode unless chosen otherwise", async () => {
    const { posts } = setup(imported, (c) => (c.url.endsWith("/replay") ? Response.json({ ...imported, id: "run_r", status: "paused" }, { status: 201 }) : notFound()));
    fireEvent.click(screen.getByRole("button", { name: "Replay" }));
    const dialog = screen.getByRole("dialog", { name: "Replay this run" });
    expect(within(dialog).getByTestId("replay-imported").textContent).toContain("someone else's content");
    const agent = within(dialog).getByLabelText("Agent") as HTMLSelectElement;
    expect(Array.from(agent.options).map((o) => o.value)).toEqual(["", "ag_mine"]); // no "own settings"
    fireEvent.click(within(dialog).getByRole("button", { name: "Start replay" }));
    expect(within(dialog).getByTestId("replay-error").textContent).toContain("Choose one of your agents");
    expect(posts()).toHaveLength(0);

    fireEvent.change(agent, { target: { value: "ag_mine" } });
    expect((within(dialog).getByLabelText("Permission mode") as HTMLSelectElement).value).toBe("ask");
    fireEvent.click(within(dialog).getByRole("radio", { name: /Run the tools for real/ }));
    fireEvent.change(within(dialog).getByLabelText("Switch to the live model at model call"), { target: { value: "2" } });
    fireEvent.click(within(dialog).getByRole("checkbox", { name: /may hold files/ }));
    fireEvent.click(within(dialog).getByRole("button", { name: "Start replay" }));
    await waitFor(() => expect(posts()).toHaveLength(1));
    expect(posts()[0]!.body).toEqual({ tools: "live", live_from: 2, workspace: "", agent: "ag_mine", mode: "ask", allow_nonempty: true });
  });
});

describe("a run of this machine", () => {
  const local: Run = { ...imported, id: "run_own", agent_id: "ag_mine", agent_name: "mine", imported_from: undefined };

  it("forks with the files choice, and asks for an agent when the server says its settings are not this machine's", async () => {
    let n = 0;
    const { posts } = setup(local, (c) => {
      if (!c.url.endsWith("/commands")) return notFound();
      n++;
      return n === 1
        ? Response.json({ command_id: c.body!["command_id"], status: "rejected", code: "needs_choice", message: "run run_own comes from run run_imp, which was imported from a recording made elsewhere: choose" })
        : Response.json({ command_id: c.body!["command_id"], status: "accepted", fork: "run_f" });
    });
    fireEvent.click(within(screen.getByTestId("llm-message")).getByRole("button", { name: "Fork from here" }));
    fireEvent.click(within(screen.getByRole("dialog", { name: "Fork from here" })).getByRole("button", { name: "Fork" }));
    const dialog = await screen.findByRole("dialog", { name: "Fork with one of your agents" });
    expect(within(dialog).getByTestId("fork-foreign").textContent).toContain("which was imported from a recording made elsewhere");
    expect(posts()[0]!.body).toEqual({ command_id: expect.any(String), type: "fork", node_id: "n3", files: "keep" });
  });

  it("replays with its own settings by default, sending no agent", async () => {
    const { posts } = setup(local, (c) => (c.url.endsWith("/replay") ? Response.json({ ...local, id: "run_r" }, { status: 201 }) : notFound()));
    fireEvent.click(screen.getByRole("button", { name: "Replay" }));
    const dialog = screen.getByRole("dialog", { name: "Replay this run" });
    expect(within(dialog).queryByTestId("replay-imported")).toBeNull();
    expect((within(dialog).getByLabelText("Agent") as HTMLSelectElement).value).toBe("");
    fireEvent.click(within(dialog).getByRole("button", { name: "Start replay" }));
    await waitFor(() => expect(posts()).toHaveLength(1));
    expect(posts()[0]!.body).toEqual({ tools: "recorded", live_from: 0, workspace: "" });
  });
});
