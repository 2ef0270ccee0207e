import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { ApprovalCard } from "./ApprovalCard";

afterEach(cleanup);

const schema = {
  type: "object",
  properties: {
    path: { type: "string", title: "Path" },
    content: { type: "string", description: "The whole new file" },
    lines: { type: "integer" },
    append: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
    meta: { type: "object" },
  },
  required: ["path", "content"],
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function renderCard(fetchImpl: typeof fetch, args: Record<string, unknown> = { path: "a.txt", content: "old\n" }) {
  const services: Services = {
    api: createApi({ fetch: fetchImpl }),
    store: createAppStore(),
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(
    <ServicesProvider value={services}>
      <ApprovalCard runId="run_1" interactionId="ia_1" tool="write_file" risk="write" arguments={args} schema={schema} />
    </ServicesProvider>,
  );
}

const ok = () => vi.fn(async (..._args: Parameters<typeof fetch>) => json(200, { id: "ia_1", status: "answered" }));
const body = (m: ReturnType<typeof ok>) => JSON.parse(String(m.mock.calls[0]![1]?.body));

describe("ApprovalCard's schema form", () => {
  it("shows the arguments labelled by the schema, and edits them in a form", async () => {
    const fetchMock = ok();
    renderCard(fetchMock as unknown as typeof fetch);
    expect(screen.getByTestId("args-view").textContent).toContain("Path");
    fireEvent.click(screen.getByTestId("edit-args"));
    const content = screen.getByRole("textbox", { name: "content" }) as HTMLTextAreaElement;
    expect(content.tagName).toBe("TEXTAREA");
    expect(content.value).toBe("old\n");
    expect(document.activeElement).toBe(screen.getByRole("textbox", { name: /Path/ }));
    fireEvent.change(content, { target: { value: "new\ntext\n" } });
    fireEvent.change(screen.getByRole("textbox", { name: "lines" }), { target: { value: "2" } });
    fireEvent.click(screen.getByRole("checkbox", { name: "append" }));
    fireEvent.click(screen.getByRole("button", { name: "Add an item" }));
    fireEvent.change(screen.getByRole("textbox", { name: "tags 1" }), { target: { value: "draft" } });
    fireEvent.change(screen.getByRole("textbox", { name: /meta/ }), { target: { value: '{"by": "me"}' } });
    fireEvent.click(screen.getByTestId("approve-edited"));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(body(fetchMock)).toEqual({
      decision: "approve",
      arguments: { path: "a.txt", content: "new\ntext\n", lines: 2, append: true, tags: ["draft"], meta: { by: "me" } },
      source: "web",
    });
  });

  it("marks wrong fields inline and sends nothing", () => {
    const fetchMock = vi.fn();
    renderCard(fetchMock as unknown as typeof fetch);
    fireEvent.click(screen.getByTestId("edit-args"));
    const lines = screen.getByRole("textbox", { name: "lines" });
    fireEvent.change(lines, { target: { value: "2.5" } });
    fireEvent.change(screen.getByRole("textbox", { name: /meta/ }), { target: { value: "[" } });
    fireEvent.click(screen.getByTestId("approve-edited"));
    expect(lines.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText("Enter a whole number.")).toBeTruthy();
    expect(screen.getByText(/^Not valid JSON/)).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
    fireEvent.change(lines, { target: { value: "2" } });
    expect(screen.queryByText("Enter a whole number.")).toBeNull();
  });

  it("switches to raw JSON and back keeping the edits", async () => {
    const fetchMock = ok();
    renderCard(fetchMock as unknown as typeof fetch);
    fireEvent.click(screen.getByTestId("edit-args"));
    fireEvent.change(screen.getByRole("textbox", { name: "content" }), { target: { value: "from the form" } });
    fireEvent.click(screen.getByTestId("args-raw"));
    const raw = screen.getByRole("textbox", { name: "Edited arguments (JSON)" }) as HTMLTextAreaElement;
    expect(JSON.parse(raw.value)).toEqual({ path: "a.txt", content: "from the form" });
    fireEvent.change(raw, { target: { value: '{"path": "b.txt", "content": "from raw", "lines": 4}' } });
    fireEvent.click(screen.getByTestId("args-raw"));
    expect((screen.getByRole("textbox", { name: /Path/ }) as HTMLInputElement).value).toBe("b.txt");
    expect((screen.getByRole("textbox", { name: "lines" }) as HTMLInputElement).value).toBe("4");
    fireEvent.click(screen.getByTestId("approve-edited"));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(body(fetchMock).arguments).toEqual({ path: "b.txt", content: "from raw", lines: 4 });
  });

  it("stays in raw JSON while the text is no object", () => {
    renderCard(vi.fn() as unknown as typeof fetch);
    fireEvent.click(screen.getByTestId("edit-args"));
    fireEvent.click(screen.getByTestId("args-raw"));
    fireEvent.change(screen.getByRole("textbox", { name: "Edited arguments (JSON)" }), { target: { value: "[1]" } });
    fireEvent.click(screen.getByTestId("args-raw"));
    expect(screen.getByRole("alert").textContent).toBe("The arguments must be a JSON object, not an array");
    expect(screen.getByRole("textbox", { name: "Edited arguments (JSON)" })).toBeTruthy();
  });

  it("approves an untouched form as a plain approval", async () => {
    const fetchMock = ok();
    renderCard(fetchMock as unknown as typeof fetch, { content: "x", path: "a.txt" });
    fireEvent.click(screen.getByTestId("edit-args"));
    fireEvent.click(screen.getByTestId("approve-edited"));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(body(fetchMock)).toEqual({ decision: "approve", source: "web" });
  });

  it("shows the server's refusal and keeps the form", async () => {
    const fetchMock = vi.fn(async () => json(400, { error: { code: "invalid", message: "arguments: content: expected string" } }));
    renderCard(fetchMock as unknown as typeof fetch);
    fireEvent.click(screen.getByTestId("edit-args"));
    fireEvent.change(screen.getByRole("textbox", { name: "content" }), { target: { value: "y" } });
    fireEvent.click(screen.getByTestId("approve-edited"));
    expect((await screen.findByRole("alert")).textContent).toMatch(/content: expected string/);
    expect((screen.getByRole("textbox", { name: "content" }) as HTMLTextAreaElement).value).toBe("y");
  });
});
