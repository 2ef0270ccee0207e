import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { ApprovalCard } from "./ApprovalCard";

afterEach(cleanup);

function renderCard(fetchImpl: typeof fetch) {
  const services: Services = {
    api: createApi({ fetch: fetchImpl }),
    store: createAppStore(),
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(
    <ServicesProvider value={services}>
      <ApprovalCard runId="run_1" interactionId="ia_1" tool="write_file" risk="write" arguments={{ path: "hello.txt" }} reason="writes need approval" />
    </ServicesProvider>,
  );
  return services;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

describe("ApprovalCard", () => {
  it("shows the tool, risk and arguments", () => {
    renderCard(vi.fn());
    expect(screen.getByText("write_file")).toBeTruthy();
    expect(screen.getByText("write")).toBeTruthy();
    expect(screen.getByText(/"path": "hello.txt"/)).toBeTruthy();
  });

  it("denies with the reason as feedback", async () => {
    const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) => json(200, { id: "ia_1", status: "answered" }));
    const services = renderCard(fetchMock as unknown as typeof fetch);

    expect(screen.queryByRole("textbox", { name: "Reason" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Deny" }));
    fireEvent.change(screen.getByRole("textbox", { name: "Reason" }), { target: { value: "not that file" } });
    fireEvent.click(screen.getByRole("button", { name: "Confirm deny" }));

    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/v1/interactions/ia_1/answer");
    expect(init?.method).toBe("POST");
    expect(init?.credentials).toBe("same-origin");
    expect(JSON.parse(String(init?.body))).toEqual({ decision: "deny", feedback: "not that file", source: "web" });
    await screen.findByText(/Denied/);
    expect(services.refreshLists).toHaveBeenCalled();
  });

  it("says already answered on a 409 and refreshes", async () => {
    const fetchMock = vi.fn(async () => json(409, { error: { code: "conflict", message: "interaction ia_1: conflict" } }));
    const services = renderCard(fetchMock as unknown as typeof fetch);

    fireEvent.click(screen.getByRole("button", { name: "Approve" }));

    expect((await screen.findByRole("alert")).textContent).toBe("already answered");
    expect(services.refreshLists).toHaveBeenCalled();
  });
});

describe("ApprovalCard always", () => {
  it("approves with a scope that saves a grant", async () => {
    const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) => json(200, { id: "ia_1", status: "answered" }));
    renderCard(fetchMock as unknown as typeof fetch);
    fireEvent.click(screen.getByRole("button", { name: "Always allow write_file on hello.txt in this run" }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/v1/interactions/ia_1/answer");
    expect(JSON.parse(String(init?.body))).toEqual({ decision: "approve", scope: "run", source: "web" });
  });

  it("says its reach on the button, and asks once for a grant beyond the run", async () => {
    const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) => json(200, { id: "ia_1", status: "answered" }));
    renderCard(fetchMock as unknown as typeof fetch);
    fireEvent.change(screen.getByRole("combobox", { name: "Always: for what" }), { target: { value: "any" } });
    fireEvent.change(screen.getByRole("combobox", { name: "Always: where" }), { target: { value: "agent" } });
    fireEvent.click(screen.getByRole("button", { name: "Always allow write_file on any file for this agent" }));
    expect(fetchMock).not.toHaveBeenCalled();
    expect(screen.getByRole("group", { name: "Confirm the grant" }).textContent).toContain("every run of this agent");
    fireEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(JSON.parse(String(fetchMock.mock.calls[0]![1]?.body))).toEqual({ decision: "approve", scope: "agent", any_argument: true, source: "web" });
  });
});

describe("ApprovalCard keys", () => {
  it("approves the focused card with a, asks for the reason with d, edits with e", async () => {
    const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) => json(200, { id: "ia_1", status: "answered" }));
    renderCard(fetchMock as unknown as typeof fetch);
    const card = screen.getByTestId("approval-card");
    fireEvent.keyDown(card, { key: "e" });
    expect(screen.getByRole("textbox", { name: "Edited arguments (JSON)" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Cancel edit" }));
    fireEvent.keyDown(card, { key: "d" });
    expect(document.activeElement).toBe(screen.getByRole("textbox", { name: "Reason" }));
    fireEvent.keyDown(screen.getByRole("textbox", { name: "Reason" }), { key: "a" }); // typed, not a key
    expect(fetchMock).not.toHaveBeenCalled();
    fireEvent.keyDown(card, { key: "a" });
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(JSON.parse(String(fetchMock.mock.calls[0]![1]?.body))).toEqual({ decision: "approve", source: "web" });
  });
});

describe("ApprovalCard edit, then approve", () => {
  const editor = () => screen.getByRole("textbox", { name: "Edited arguments (JSON)" }) as HTMLTextAreaElement;

  it("shows the arguments as pretty JSON and sends the edit as arguments", async () => {
    const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) => json(200, { id: "ia_1", status: "answered" }));
    renderCard(fetchMock as unknown as typeof fetch);

    fireEvent.click(screen.getByTestId("edit-args"));
    expect(editor().value).toBe('{\n  "path": "hello.txt"\n}');
    expect(document.activeElement).toBe(editor()); // moved by the click, not on its own
    fireEvent.change(editor(), { target: { value: '{"path": "other.txt", "content": "hi"}' } });
    fireEvent.click(screen.getByTestId("approve-edited"));

    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/v1/interactions/ia_1/answer");
    expect(JSON.parse(String(init?.body))).toEqual({ decision: "approve", arguments: { path: "other.txt", content: "hi" }, source: "web" });
    expect((await screen.findByTestId("approval-sent")).textContent).toMatch(/^Approved with edited arguments/);
  });

  it("refuses text that is not a JSON object, without asking the server", () => {
    const fetchMock = vi.fn();
    renderCard(fetchMock as unknown as typeof fetch);
    fireEvent.click(screen.getByTestId("edit-args"));

    fireEvent.change(editor(), { target: { value: '{"path": ' } });
    fireEvent.click(screen.getByTestId("approve-edited"));
    expect(screen.getByRole("alert").textContent).toMatch(/^Not valid JSON/);
    expect(editor().getAttribute("aria-invalid")).toBe("true");

    fireEvent.change(editor(), { target: { value: '["a.txt"]' } });
    fireEvent.click(screen.getByTestId("approve-edited"));
    expect(screen.getByRole("alert").textContent).toBe("The arguments must be a JSON object, not an array");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("shows the server's 400 inline and keeps the text", async () => {
    const fetchMock = vi.fn(async () => json(400, { error: { code: "invalid", message: "arguments: content is required" } }));
    renderCard(fetchMock as unknown as typeof fetch);
    fireEvent.click(screen.getByTestId("edit-args"));
    fireEvent.change(editor(), { target: { value: '{"path": "b.txt"}' } });
    fireEvent.click(screen.getByTestId("approve-edited"));

    expect((await screen.findByRole("alert")).textContent).toBe("arguments: content is required");
    expect(editor().value).toBe('{"path": "b.txt"}');
    expect(screen.queryByTestId("approval-sent")).toBeNull();
  });

  it("goes back to the plain buttons on Cancel edit", () => {
    renderCard(vi.fn());
    fireEvent.click(screen.getByTestId("edit-args"));
    expect(screen.queryByRole("button", { name: "Approve" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Cancel edit" }));
    expect(screen.queryByRole("textbox", { name: "Edited arguments (JSON)" })).toBeNull();
    expect(screen.getByRole("button", { name: "Approve" })).toBeTruthy();
  });
});

describe("ApprovalCard expiry", () => {
  afterEach(() => vi.useRealTimers());

  it("counts down to the default decision", () => {
    vi.useFakeTimers({ now: 100_000 });
    render(
      <ServicesProvider value={{ api: createApi({ fetch: vi.fn() }), store: createAppStore(), refreshLists: vi.fn(), refreshRun: vi.fn() }}>
        <ApprovalCard runId="run_1" interactionId="ia_1" tool="write_file" risk="write" arguments={{}} expiresAt={142_000} defaultDecision="deny" />
        <ApprovalCard runId="run_1" interactionId="ia_2" tool="write_file" risk="write" arguments={{}} expiresAt={400_000} defaultDecision="approve" />
      </ServicesProvider>,
    );
    const [deny, approve] = screen.getAllByTestId("expiry-countdown");
    expect(deny!.textContent).toBe("denies automatically in 42 s");
    expect(approve!.textContent).toBe("approves automatically in 5 min 0 s");
    act(() => vi.advanceTimersByTime(2000));
    expect(deny!.textContent).toBe("denies automatically in 40 s");
    act(() => vi.advanceTimersByTime(60_000));
    expect(deny!.textContent).toBe("denies automatically now…");
  });
});

describe("ApprovalCard edit, unchanged", () => {
  it("approves plainly when the arguments were not changed", async () => {
    const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) => json(200, { id: "ia_1", status: "answered" }));
    renderCard(fetchMock as unknown as typeof fetch);
    fireEvent.click(screen.getByTestId("edit-args"));
    fireEvent.click(screen.getByTestId("approve-edited"));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(JSON.parse(String(fetchMock.mock.calls[0]![1]?.body))).toEqual({ decision: "approve", source: "web" });
  });
});
