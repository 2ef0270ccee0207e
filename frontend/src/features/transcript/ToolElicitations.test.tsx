import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Event } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { ToolCard } from "./ToolCard";

afterEach(cleanup);

const tool = "mcp__github__create_issue";
const schema = { type: "object", properties: { title: { type: "string", title: "Title" }, body: { type: "string" } }, required: ["title"] };

const running: Omit<Event, "run_id" | "seq" | "ts">[] = [
  { type: "run.status", data: { status: "running" } },
  { type: "node.started", node_id: "n_tool", data: { kind: "tool", label: tool, tool, arguments: { repo: "a/b" }, risk: "network" } },
  { type: "tool.executing", node_id: "n_tool", data: null },
  {
    type: "approval.requested",
    node_id: "n_tool",
    data: { interaction_id: "ia_e1", kind: "elicitation", tool, arguments: null, risk: "network", reason: "", question: { text: "Which\n  title?", server: "github", schema } },
  },
];

function setup(evs: Omit<Event, "run_id" | "seq" | "ts">[]) {
  const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) =>
    new Response(JSON.stringify({ id: "ia_e1", status: "answered" }), { status: 200, headers: { "Content-Type": "application/json" } }),
  );
  const store = createAppStore();
  store.getState().applyEvents(evs.map((e, i) => ({ run_id: "run_1", seq: i + 1, ts: 1000 + i, ...e })));
  render(
    <ServicesProvider value={{ api: createApi({ fetch: fetchMock as unknown as typeof fetch }), store, refreshLists: vi.fn(async () => {}), refreshRun: vi.fn(async () => {}) }}>
      <ToolCard runId="run_1" nodeId="n_tool" />
    </ServicesProvider>,
  );
  return { fetchMock, card: screen.getByTestId("tool-card") };
}

describe("ToolCard elicitations", () => {
  it("shows a waiting request's card on the running call", async () => {
    const { fetchMock, card } = setup(running);
    expect(card.dataset["status"]).toBe("running");
    expect(within(card).getByText("running: asks for input")).toBeTruthy();
    const ask = within(card).getByTestId("elicitation-card");
    expect(within(ask).getByText("github asks")).toBeTruthy();
    fireEvent.change(within(ask).getByRole("textbox", { name: /^Title/ }), { target: { value: "Crash" } });
    fireEvent.click(within(ask).getByRole("button", { name: "Send" }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(JSON.parse(String(fetchMock.mock.calls[0]![1]?.body))).toEqual({ decision: "answer", content: { title: "Crash" }, source: "web" });
  });

  it("says in one line what became of each request, naming only the fields sent", () => {
    const { card } = setup([
      ...running,
      { type: "approval.decided", node_id: "n_tool", data: { interaction_id: "ia_e1", kind: "elicitation", decision: "answer", source: "web", content: { title: "secret title", body: "secret body" } } },
      {
        type: "approval.requested",
        node_id: "n_tool",
        data: { interaction_id: "ia_e2", kind: "elicitation", tool, arguments: null, risk: "network", reason: "", question: { text: "Sign in", server: "github", url: "https://github.com/login" } },
      },
      { type: "approval.decided", node_id: "n_tool", data: { interaction_id: "ia_e2", kind: "elicitation", decision: "deny", source: "desktop" } },
      {
        type: "approval.requested",
        node_id: "n_tool",
        data: { interaction_id: "ia_e3", kind: "elicitation", tool, arguments: null, risk: "network", reason: "", question: { text: "More?", server: "github", schema } },
      },
      { type: "approval.decided", node_id: "n_tool", data: { interaction_id: "ia_e3", kind: "elicitation", decision: "deny", source: "timeout" } },
    ]);
    expect(card.dataset["status"]).toBe("running");
    expect(within(card).queryByTestId("elicitation-card")).toBeNull();
    expect(within(card).queryByTestId("tool-decision")).toBeNull(); // the call's approval is untouched
    expect(within(card).getAllByTestId("tool-elicitation").map((p) => p.textContent)).toEqual([
      "github asked: Which title? — answered (web): sent title, body",
      "github asked: Sign in — declined (desktop)",
      "github asked: More? — no answer in time",
    ]);
    expect(card.textContent).not.toContain("secret");
  });
});
