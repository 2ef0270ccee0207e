import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Interaction } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { groupInbox } from "./groups";
import { Inbox } from "./Inbox";

afterEach(cleanup);

function ia(id: string, extra: Partial<Interaction> = {}): Interaction {
  return {
    id, run_id: "run_1", node_id: `n_${id}`, kind: "approval", status: "pending", tool: "write_file",
    arguments: { path: `${id}.txt` }, risk: "write", reason: "writes ask", created_at: 1, ...extra,
  };
}

// The inbox as the server answers it: newest first. ia_1..ia_3 are the
// parallel calls of one turn (n_llm), made in that order.
const turn = [
  ia("ia_3", { group: "n_llm", group_size: 3, created_at: 12 }),
  ia("ia_2", { group: "n_llm", group_size: 3, created_at: 11 }),
  ia("ia_1", { group: "n_llm", group_size: 3, created_at: 10 }),
];

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function renderInbox(inbox: Interaction[], fetchImpl: typeof fetch = vi.fn(), selectedRunId?: string) {
  const services: Services = {
    api: createApi({ fetch: fetchImpl }),
    store: createAppStore({ inbox, listsLoaded: true, selectedRunId }),
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(
    <ServicesProvider value={services}>
      <Inbox />
    </ServicesProvider>,
  );
  return services;
}

describe("groupInbox", () => {
  it("boxes the parallel calls of a turn in call order, where the newest was", () => {
    const single = ia("ia_9", { created_at: 20 });
    const other = ia("ia_8", { run_id: "run_2", group: "n_llm", group_size: 1, created_at: 15 });
    const question = ia("ia_7", { kind: "question", group: "n_llm", group_size: 3, created_at: 13 });
    const entries = groupInbox([single, other, question, ...turn]);
    expect(entries.map((e) => (e.kind === "group" ? e.items.map((i) => i.id) : e.interaction.id))).toEqual([
      "ia_9", "ia_8", "ia_7", ["ia_1", "ia_2", "ia_3"],
    ]);
  });

  it("orders calls opened in the same millisecond by their nodes", () => {
    const b = ia("ia_b", { node_id: "n10", group: "n_llm", group_size: 2, created_at: 5 });
    const a = ia("ia_a", { node_id: "n9", group: "n_llm", group_size: 2, created_at: 5 });
    const [entry] = groupInbox([b, a]);
    expect(entry).toMatchObject({ kind: "group", items: [{ id: "ia_a" }, { id: "ia_b" }] });
  });

  it("keeps a group once some of its calls were answered", () => {
    const [entry] = groupInbox([turn[0]!]);
    expect(entry).toMatchObject({ kind: "group", size: 3, items: [{ id: "ia_3" }] });
  });
});

describe("Inbox groups", () => {
  it("approves all the calls of a turn in one request and shows each call's own error", async () => {
    const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) =>
      json(200, {
        results: [
          { id: "ia_1", interaction: { ...turn[2], status: "answered" } },
          { id: "ia_2", error: { code: "conflict", message: "already answered" } },
          { id: "ia_3", error: { code: "invalid", message: "run ended" } },
        ],
      }),
    );
    const services = renderInbox(turn, fetchMock as unknown as typeof fetch);

    const box = screen.getByTestId("approval-group");
    expect(within(box).getByText("3 parallel calls from this turn")).toBeTruthy();
    const cards = within(box).getAllByTestId("approval-card");
    expect(cards.map((c) => c.dataset["interactionId"])).toEqual(["ia_1", "ia_2", "ia_3"]);
    // Each call keeps its own buttons.
    expect(within(cards[0]!).getByRole("button", { name: "Approve" })).toBeTruthy();

    fireEvent.click(screen.getByTestId("approve-all"));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/v1/interactions/answers");
    expect(init?.method).toBe("POST");
    expect(JSON.parse(String(init?.body))).toEqual({
      answers: [
        { id: "ia_1", decision: "approve", source: "web" },
        { id: "ia_2", decision: "approve", source: "web" },
        { id: "ia_3", decision: "approve", source: "web" },
      ],
    });

    await waitFor(() => expect(within(cards[0]!).getByTestId("approval-sent").textContent).toMatch(/^Approved/));
    expect(within(cards[1]!).getByRole("alert").textContent).toBe("already answered");
    expect(within(cards[2]!).getByRole("alert").textContent).toBe("run ended");
    expect(within(cards[2]!).getByRole("button", { name: "Approve" })).toBeTruthy(); // still open: it can be tried again
    expect(services.refreshLists).toHaveBeenCalled();
  });

  it("denies all with the batch endpoint", async () => {
    const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) =>
      json(200, { results: turn.map((t) => ({ id: t.id, interaction: t })) }),
    );
    renderInbox(turn, fetchMock as unknown as typeof fetch);
    fireEvent.click(screen.getByTestId("deny-all"));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const body = JSON.parse(String(fetchMock.mock.calls[0]![1]?.body)) as { answers: { decision: string }[] };
    expect(body.answers.map((a) => a.decision)).toEqual(["deny", "deny", "deny"]);
    await waitFor(() => expect(screen.getAllByTestId("approval-sent").map((p) => p.textContent?.slice(0, 6))).toEqual(["Denied", "Denied", "Denied"]));
  });

  it("shows a lone approval and a question without a group box", () => {
    renderInbox([ia("ia_q", { kind: "question", tool: "ask_user", question: { text: "Which file?" } }), ia("ia_1")]);
    expect(screen.queryByTestId("approval-group")).toBeNull();
    expect(screen.getByTestId("question-card")).toBeTruthy();
    expect(screen.getByTestId("approval-card")).toBeTruthy();
    expect(screen.getByText("Which file?")).toBeTruthy();
  });

  it("shows an MCP server's request as its own card, never in a group", () => {
    const ask = ia("ia_e", {
      kind: "elicitation", tool: "mcp__github__create_issue", group: "n_llm", group_size: 3, created_at: 13,
      question: { text: "Which repository?", server: "github", schema: { type: "object", properties: { repo: { type: "string", title: "Repository" } } } },
    });
    renderInbox([ask, ...turn]);
    const card = screen.getByTestId("elicitation-card");
    expect(card.dataset["interactionId"]).toBe("ia_e");
    expect(within(card).getByText("github asks")).toBeTruthy();
    expect(within(card).getByText("Which repository?")).toBeTruthy();
    expect(within(card).getByRole("textbox", { name: "Repository" })).toBeTruthy();
    expect(within(screen.getByTestId("approval-group")).queryByTestId("elicitation-card")).toBeNull();
  });

  it("takes the focus from nobody: a new item leaves the steer box focused", () => {
    const steer = document.createElement("textarea");
    document.body.appendChild(steer);
    steer.focus();
    const { store } = renderInbox([]);
    store.getState().setLists([], [ia("ia_q", { kind: "question", question: { text: "Free text?" } }), ...turn]);
    return waitFor(() => {
      expect(screen.getAllByTestId("approval-card")).toHaveLength(3);
      expect(document.activeElement).toBe(steer);
      steer.remove();
    });
  });
});

describe("Inbox on a run", () => {
  it("is one line: what waits in the run on view is on its cards, the rest unfolds on demand", () => {
    const elsewhere = ia("ia_9", { run_id: "run_2", created_at: 20 });
    renderInbox([elsewhere, ...turn], vi.fn(), "run_1");
    expect(screen.getByTestId("inbox-here").textContent).toContain("3 waiting in this run");
    // The turn's group is decided from the line; its cards are the transcript's.
    expect(screen.getByTestId("approve-all")).toBeTruthy();
    expect(screen.queryAllByTestId("approval-card")).toHaveLength(0);
    const toggle = screen.getByTestId("inbox-toggle");
    expect(toggle.textContent).toBe("Show 1 in other run");
    fireEvent.click(toggle);
    expect(screen.getAllByTestId("approval-card")).toHaveLength(1);
    expect(screen.getByTestId("inbox-toggle").textContent).toBe("Hide 1 in other run");
  });
});

describe("Enable notifications", () => {
  it("says so when the browser refuses", async () => {
    const N = { permission: "default", requestPermission: vi.fn(async () => "denied") };
    vi.stubGlobal("Notification", N);
    try {
      renderInbox([]);
      fireEvent.click(screen.getByTestId("enable-notifications"));
      expect((await screen.findByTestId("notifications-refused")).textContent).toContain("refused notifications");
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
