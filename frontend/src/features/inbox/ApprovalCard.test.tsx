import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
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
      <ApprovalCard interactionId="ia_1" tool="write_file" risk="write" arguments={{ path: "hello.txt" }} reason="writes need approval" />
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
    fireEvent.click(screen.getByRole("button", { name: "Always in this run" }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/v1/interactions/ia_1/answer");
    expect(JSON.parse(String(init?.body))).toEqual({ decision: "approve", scope: "run", source: "web" });
  });
});
