import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event, Run } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { RunList } from "../runs/RunList";
import { RunView } from "../transcript/RunView";
import { ReplayButton } from "./ReplayDialog";

afterEach(cleanup);

const source = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "completed", instructions: "go",
  workspace: "/ws", mode: "ask", provider: "script", model: "", demo: false, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 0, steps: 2, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["fork", "replay"],
} satisfies Run;

const replayRun: Run = { ...source, id: "run_2", status: "running", created_at: 2, updated_at: 2, capabilities: ["pause", "cancel"], replay_of: "run_1" };

type Answer = (url: string, init?: RequestInit) => Response;

const notFound: Answer = () => Response.json({ error: { code: "not_found", message: "no such thing" } }, { status: 404 });

function setup(ui: ReactNode, opts: { runs?: Run[]; selected?: string; answer?: Answer; events?: Event[] } = {}) {
  const calls: { url: string; method: string; body?: unknown }[] = [];
  const answer = opts.answer ?? notFound;
  const fetchFake = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ url: String(input), method: init?.method ?? "GET", body: init?.body ? JSON.parse(String(init.body)) : undefined });
    return answer(String(input), init);
  });
  const store = createAppStore({ runs: opts.runs ?? [source], selectedRunId: opts.selected ?? "run_1" });
  if (opts.events) store.getState().applyEvents(opts.events);
  const services: Services = {
    api: createApi({ fetch: fetchFake as unknown as typeof fetch }),
    store,
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(<ServicesProvider value={services}>{ui}</ServicesProvider>);
  const posts = () => calls.filter((c) => c.method === "POST");
  return { calls, posts, store, services };
}

const runHeader = () => document.querySelector<HTMLElement>("header.run-header")!;
const radio = (name: string) => screen.getByRole("radio", { name }) as HTMLInputElement;
const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const recorded = "Recorded results (nothing runs)";
const live = "Run the tools for real, in a workspace put back to where the run started";
const liveFrom = "Switch to the live model at model call";

describe("ReplayButton", () => {
  it("is not there without the replay capability", () => {
    setup(<ReplayButton runId="run_1" />, { runs: [{ ...source, capabilities: ["fork"] }] });
    expect(screen.queryByRole("button", { name: "Replay" })).toBeNull();
  });

  it("starts a replay with the defaults, then opens the new run", async () => {
    const { posts, store, services } = setup(<ReplayButton runId="run_1" />, {
      answer: (url) => (url.endsWith("/replay") ? Response.json(replayRun, { status: 201 }) : notFound(url)),
    });
    fireEvent.click(screen.getByRole("button", { name: "Replay" }));
    const dialog = screen.getByRole("dialog", { name: "Replay this run" });
    expect(radio(recorded).checked).toBe(true);
    expect(radio(live).checked).toBe(false);
    expect(field(liveFrom).value).toBe("");
    expect(field("Workspace folder").value).toBe("");
    fireEvent.click(within(dialog).getByRole("button", { name: "Start replay" }));

    await waitFor(() => expect(store.getState().selectedRunId).toBe("run_2"));
    expect(posts()).toEqual([{ url: "/api/v1/runs/run_1/replay", method: "POST", body: { tools: "recorded", live_from: 0, workspace: "" } }]);
    expect(store.getState().runs[0]!.id).toBe("run_2");
    expect(services.refreshLists).toHaveBeenCalled();
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  // A run recorded elsewhere replays with one of this machine's agents,
  // which the person chooses (foreign.test.tsx): it is no longer limited to
  // the recorded results, since its recorded settings decide nothing.
  it("asks which agent replays a run recorded elsewhere", () => {
    const { posts } = setup(<ReplayButton runId="run_1" />, {
      runs: [{ ...source, imported_from: "run_far" }],
      answer: () => Response.json(replayRun, { status: 201 }),
    });
    fireEvent.click(screen.getByRole("button", { name: "Replay" }));
    expect(radio(recorded).checked).toBe(true);
    expect(radio(live).disabled).toBe(false);
    expect(screen.getByTestId("replay-imported").textContent).toContain("someone else's content");
    fireEvent.click(screen.getByRole("button", { name: "Start replay" }));
    expect(screen.getByTestId("replay-error").textContent).toContain("Choose one of your agents");
    expect(posts()).toHaveLength(0);
  });

  it("sends the tools, the model call and the folder chosen", async () => {
    const { posts, store } = setup(<ReplayButton runId="run_1" />, { answer: () => Response.json(replayRun, { status: 201 }) });
    fireEvent.click(screen.getByRole("button", { name: "Replay" }));
    fireEvent.click(radio(live));
    fireEvent.change(field(liveFrom), { target: { value: " 3 " } });
    fireEvent.change(field("Workspace folder"), { target: { value: "/tmp/replay-here" } });
    fireEvent.click(screen.getByRole("button", { name: "Start replay" }));
    await waitFor(() => expect(store.getState().selectedRunId).toBe("run_2"));
    expect(posts()[0]!.body).toEqual({ tools: "live", live_from: 3, workspace: "/tmp/replay-here" });
  });

  it("shows the server's refusal in the dialog and keeps what was chosen", async () => {
    const message = "invalid: live_from 3: the agent's model is not configured";
    const { posts, store } = setup(<ReplayButton runId="run_1" />, {
      answer: () => Response.json({ error: { code: "invalid", message } }, { status: 400 }),
    });
    fireEvent.click(screen.getByRole("button", { name: "Replay" }));
    fireEvent.click(radio(live));
    fireEvent.change(field(liveFrom), { target: { value: "3" } });
    fireEvent.change(field("Workspace folder"), { target: { value: "/tmp/w" } });
    fireEvent.click(screen.getByRole("button", { name: "Start replay" }));

    expect((await screen.findByTestId("replay-error")).textContent).toBe(message);
    expect(posts()).toHaveLength(1);
    expect(screen.getByRole("dialog", { name: "Replay this run" })).toBeTruthy();
    expect(radio(live).checked).toBe(true);
    expect(field(liveFrom).value).toBe("3");
    expect(field("Workspace folder").value).toBe("/tmp/w");
    expect(store.getState().selectedRunId).toBe("run_1");
    expect((screen.getByRole("button", { name: "Start replay" }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("refuses a model call that is not a number without asking the server", () => {
    const { posts } = setup(<ReplayButton runId="run_1" />);
    fireEvent.click(screen.getByRole("button", { name: "Replay" }));
    fireEvent.change(field(liveFrom), { target: { value: "three" } });
    fireEvent.click(screen.getByRole("button", { name: "Start replay" }));
    expect(screen.getByTestId("replay-error").textContent).toContain('"three" is not a model call number');
    expect(posts()).toHaveLength(0);
  });

  it("chooses the workspace with the folder picker", async () => {
    setup(<ReplayButton runId="run_1" />, {
      answer: (url) =>
        url.includes("/fs/dirs") ? Response.json({ path: "/home/me", dirs: [], truncated: false, home: "/home/me" }) : notFound(url),
    });
    fireEvent.click(screen.getByRole("button", { name: "Replay" }));
    fireEvent.click(screen.getByRole("button", { name: "Browse folders" }));
    const picker = await screen.findByRole("dialog", { name: "Choose a workspace folder" });
    await within(picker).findByText("/home/me");
    fireEvent.click(within(picker).getByRole("button", { name: "Use this folder" }));
    expect(field("Workspace folder").value).toBe("/home/me");
    expect(screen.queryByRole("dialog", { name: "Choose a workspace folder" })).toBeNull();
  });
});

// A replay's log: it diverged at model call 2, after its read_file call.
const long = "x".repeat(150) + " " + "y".repeat(150);
const replayEvents: Event[] = (
  [
    { type: "run.created", data: { agent: { id: "ag_1", name: "demo", provider: "script", model: "" }, instructions: "go", workspace: "/r", mode: "ask", max_steps: 9, replay_of: "run_1" } },
    { type: "run.status", data: { status: "running" } },
    { type: "node.started", node_id: "n_user", data: { kind: "user", label: "Instructions", text: "go" } },
    { type: "node.started", node_id: "n_llm1", data: { kind: "llm", label: "Model", step: 1 } },
    { type: "node.started", node_id: "n_tool", data: { kind: "tool", label: "read_file", tool: "read_file", arguments: { path: "a.txt" }, risk: "read" } },
    { type: "replay.diverged", node_id: "", data: { step: 2, field: "messages[4].content (tool result of call_2)", recorded: "hello", got: long } },
    { type: "node.started", node_id: "n_llm2", data: { kind: "llm", label: "Model", step: 2 } },
  ] as Omit<Event, "run_id" | "seq" | "ts">[]
).map((e, i) => ({ ...e, run_id: "run_2", seq: i + 1, ts: 1000 + i }));

describe("RunView of a replay", () => {
  it("offers Replay next to Export only when the run can be replayed", () => {
    setup(<RunView />, { runs: [source] });
    const header = runHeader();
    expect(within(header).getByRole("button", { name: "Replay" })).toBeTruthy();
    expect(within(header).getByRole("button", { name: "Export" })).toBeTruthy();
    cleanup();
    setup(<RunView />, { runs: [{ ...source, status: "running", capabilities: ["pause", "cancel"] }] });
    expect(within(runHeader()).queryByRole("button", { name: "Replay" })).toBeNull();
  });

  it("links to the run it replays, and says where it diverged from its recording", () => {
    const { store } = setup(<RunView />, { runs: [replayRun, source], selected: "run_2", events: replayEvents });
    const header = runHeader();
    expect(within(header).getByTestId("replay-of").textContent).toBe("replay of run_1");

    const banner = within(header).getByTestId("replay-diverged");
    const clipped = long.slice(0, 199) + "…";
    expect(banner.querySelector("p")!.textContent).toBe(
      `This replay diverged from its recording at model call 2: messages[4].content (tool result of call_2) — recorded “hello”, got “${clipped}”`,
    );
    expect(within(banner).getByTestId("diverged-got").getAttribute("title")).toBe(long);
    expect(within(banner).getByText("Both values in full")).toBeTruthy();
    expect(banner.querySelectorAll("pre")[1]!.textContent).toBe(long);

    // In the transcript, after the node that started last before it.
    const transcript = screen.getByRole("region", { name: "Transcript" });
    const row = within(transcript).getByTestId("transcript-diverged");
    expect(row.textContent).toBe("Diverged from the recording here, at model call 2: messages[4].content (tool result of call_2)");
    const rows = Array.from(transcript.querySelectorAll("[data-testid=transcript-diverged], article[data-tool]"));
    expect(rows.map((r) => r.getAttribute("data-tool") ?? "diverged")).toEqual(["read_file", "diverged"]);

    fireEvent.click(within(header).getByRole("button", { name: "Open run run_1" }));
    expect(store.getState().selectedRunId).toBe("run_1");
  });

  it("shows nothing of a divergence before there is one", () => {
    setup(<RunView />, { runs: [replayRun, source], selected: "run_2", events: replayEvents.slice(0, 5) });
    expect(screen.getByTestId("replay-of")).toBeTruthy();
    expect(screen.queryByTestId("replay-diverged")).toBeNull();
    expect(screen.queryByTestId("transcript-diverged")).toBeNull();
  });

  it("names a run recorded elsewhere as text, not a link", () => {
    setup(<RunView />, { runs: [{ ...replayRun, replay_of: "run_far" }], selected: "run_2" });
    const marker = screen.getByTestId("replay-of");
    expect(marker.textContent).toBe("replay of run_far");
    expect(within(marker).queryByRole("button")).toBeNull();
    expect(marker.querySelector("code")!.getAttribute("title")).toBe("recorded elsewhere");
  });
});

describe("RunList", () => {
  it("marks a replay with the run it replays", () => {
    setup(<RunList />, { runs: [replayRun, { ...replayRun, id: "run_3", replay_of: "run_far" }, source] });
    const markers = screen.getAllByTestId("replay-marker");
    expect(markers.map((m) => [m.textContent, m.getAttribute("title")])).toEqual([
      ["replay of run_1", "Replays run run_1"],
      ["replay of run_far", "recorded elsewhere"],
    ]);
  });
});
