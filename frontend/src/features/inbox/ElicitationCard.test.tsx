import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { ElicitationCard } from "./ElicitationCard";

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

type Ask = { message?: string; schema?: unknown; url?: string };

function renderCard(ask: Ask, status = 200, body: unknown = { id: "ia_e", status: "answered" }) {
  const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) => json(status, body));
  render(
    <ServicesProvider
      value={{ api: createApi({ fetch: fetchMock as unknown as typeof fetch }), store: createAppStore(), refreshLists: vi.fn(async () => {}), refreshRun: vi.fn(async () => {}) }}
    >
      <ElicitationCard
        interactionId="ia_e"
        server="github"
        tool="mcp__github__create_issue"
        message={ask.message ?? "Tell me about the issue"}
        schema={ask.schema}
        url={ask.url}
      />
    </ServicesProvider>,
  );
  const sent = async () => {
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/v1/interactions/ia_e/answer");
    expect(init?.method).toBe("POST");
    return JSON.parse(String(init?.body)) as unknown;
  };
  return { fetchMock, sent };
}

// A schema with every kind of property MCP allows.
const schema = {
  type: "object",
  properties: {
    title: { type: "string", title: "Issue title", description: "One line", minLength: 3, maxLength: 20, default: "Bug" },
    email: { type: "string", format: "email", title: "Email" },
    site: { type: "string", format: "uri", title: "Site" },
    due: { type: "string", format: "date", title: "Due" },
    count: { type: "integer", title: "Count", minimum: 1, maximum: 5, default: 2 },
    ratio: { type: "number", title: "Ratio" },
    urgent: { type: "boolean", title: "Urgent", default: true },
    notify: { type: "boolean" },
    priority: { type: "string", title: "Priority", enum: ["lo", "hi"], enumNames: ["Low", "High"], default: "hi" },
    team: { type: "string", title: "Team", oneOf: [{ const: "a", title: "Alpha" }, { const: "b", title: "Beta" }] },
    labels: { type: "array", title: "Labels", items: { type: "string", enum: ["bug", "docs"] }, maxItems: 1, default: ["bug"] },
    tags: { type: "array", title: "Tags", items: { anyOf: [{ const: "x", title: "Ex" }, { const: "y", title: "Why" }] } },
  },
  required: ["title", "email", "count"],
};

const field = (label: RegExp) => screen.getByLabelText(label) as HTMLInputElement;
const type = (label: RegExp, value: string) => fireEvent.change(field(label), { target: { value } });
const submit = () => fireEvent.click(screen.getByRole("button", { name: "Send" }));

describe("ElicitationCard form", () => {
  it("renders a field of every kind with its label, help and default", () => {
    renderCard({ schema });
    const card = screen.getByRole("group", { name: "Request from github" });
    expect(within(card).getByText("github asks")).toBeTruthy();
    expect(within(card).getByText("mcp__github__create_issue")).toBeTruthy();

    expect(field(/^Issue title/).value).toBe("Bug");
    expect(document.getElementById(field(/^Issue title/).getAttribute("aria-describedby")!)?.textContent).toBe("One line");
    expect(field(/^Email/).type).toBe("email");
    expect(field(/^Site/).type).toBe("url");
    expect(field(/^Due/).type).toBe("date");
    expect(field(/^Count/).value).toBe("2");
    expect(field(/^Ratio/).value).toBe("");
    expect(screen.getByRole("checkbox", { name: "Urgent" })).toHaveProperty("checked", true);
    // No title: the property's name is the label.
    expect(screen.getByRole("checkbox", { name: "notify" })).toHaveProperty("checked", false);
    const priority = screen.getByRole("combobox", { name: "Priority" }) as HTMLSelectElement;
    expect(priority.value).toBe("hi");
    expect([...priority.options].map((o) => o.text)).toEqual(["(none)", "Low", "High"]);
    expect([...(screen.getByRole("combobox", { name: "Team" }) as HTMLSelectElement).options].map((o) => o.text)).toEqual(["(none)", "Alpha", "Beta"]);
    const labels = screen.getByRole("group", { name: "Labels" });
    expect(within(labels).getByRole("checkbox", { name: "bug" })).toHaveProperty("checked", true);
    expect(within(labels).getByRole("checkbox", { name: "docs" })).toHaveProperty("checked", false);
    expect(within(screen.getByRole("group", { name: "Tags" })).getAllByRole("checkbox").map((c) => c.parentElement?.textContent)).toEqual(["Ex", "Why"]);
  });

  it("blocks a bad submit with a message on each wrong field", () => {
    const { fetchMock } = renderCard({ schema });
    type(/^Issue title/, "ab");
    type(/^Email/, "nope");
    type(/^Site/, "not a url");
    type(/^Count/, "2.5");
    type(/^Ratio/, "lots");
    fireEvent.click(within(screen.getByRole("group", { name: "Labels" })).getByRole("checkbox", { name: "docs" }));
    submit();
    expect(fetchMock).not.toHaveBeenCalled();
    const message = (label: RegExp) => document.getElementById(field(label).getAttribute("aria-describedby")!.split(" ").pop()!)?.textContent;
    expect(message(/^Issue title/)).toBe("At least 3 characters.");
    expect(field(/^Issue title/).getAttribute("aria-invalid")).toBe("true");
    expect(message(/^Email/)).toBe("Enter an email address, like name@example.com.");
    expect(message(/^Site/)).toBe("Enter a full address, like https://example.com/page.");
    expect(message(/^Count/)).toBe("Enter a whole number.");
    expect(message(/^Ratio/)).toBe("Enter a number.");
    expect(screen.getByText("Choose at most 1.")).toBeTruthy();

    type(/^Count/, "9");
    type(/^Email/, "");
    submit();
    expect(message(/^Count/)).toBe("Must be at most 5.");
    expect(message(/^Email/)).toBe("Required.");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("sends typed content and leaves out what was left empty", async () => {
    const { sent } = renderCard({ schema });
    type(/^Email/, "me@example.com");
    type(/^Due/, "2025-02-03");
    type(/^Ratio/, "0.5");
    fireEvent.change(screen.getByRole("combobox", { name: "Team" }), { target: { value: "b" } });
    fireEvent.click(screen.getByRole("checkbox", { name: "Why" }));
    submit();
    expect(await sent()).toEqual({
      decision: "answer",
      source: "web",
      content: {
        title: "Bug",
        email: "me@example.com",
        due: "2025-02-03",
        count: 2,
        ratio: 0.5,
        urgent: true,
        notify: false,
        priority: "hi",
        team: "b",
        labels: ["bug"],
        tags: ["y"],
      },
    });
    expect((await screen.findByTestId("elicitation-sent")).textContent).toBe("Sent");
  });

  it("declines", async () => {
    const { sent } = renderCard({ schema });
    fireEvent.click(screen.getByRole("button", { name: "Decline" }));
    expect(await sent()).toEqual({ decision: "deny", source: "web" });
    expect((await screen.findByTestId("elicitation-sent")).textContent).toBe("Declined");
  });

  it("shows the server's refusal of a field", async () => {
    renderCard({ schema: { type: "object", properties: { name: { type: "string" } } } }, 400, {
      error: { code: "invalid", message: "content.name: must not be empty" },
    });
    submit();
    expect((await screen.findByRole("alert")).textContent).toBe("content.name: must not be empty");
    expect(screen.getByRole("button", { name: "Send" })).toBeTruthy(); // still open: it can be tried again
  });

  it("offers only Decline for a form it cannot show", () => {
    renderCard({ schema: { type: "object", properties: { ok: { type: "string" }, address: { type: "object", properties: {} } } } });
    expect(screen.getByTestId("elicitation-unsupported").textContent).toMatch(/field "address"/);
    expect(screen.queryByRole("textbox")).toBeNull();
    expect(screen.getAllByRole("button").map((b) => b.textContent)).toEqual(["Decline"]);
  });

  it("shows the message as text, never as markup", () => {
    const message = "<b>x</b> [a](javascript:alert(1)) <img src=x onerror=alert(1)>";
    renderCard({ message, schema: { type: "object", properties: {} } });
    const p = screen.getByTestId("elicitation-message");
    expect(p.textContent).toBe(message);
    expect(p.children).toHaveLength(0);
    expect(screen.queryByRole("link")).toBeNull();
    expect(document.querySelector("b, img")).toBeNull();
  });
});

describe("ElicitationCard url mode", () => {
  it("links the page, opens nothing by itself, and says when it is done", async () => {
    const open = vi.spyOn(window, "open").mockImplementation(() => null);
    const { fetchMock, sent } = renderCard({ message: "Sign in to GitHub", url: "https://github.com@evil.example:8443/login?x=1" });
    expect(screen.getByTestId("elicitation-host").textContent).toBe("evil.example:8443");
    expect(screen.getByTestId("elicitation-url").textContent).toBe("https://github.com@evil.example:8443/login?x=1");
    const link = screen.getByRole("link", { name: "Open page" });
    expect(link.getAttribute("href")).toBe("https://github.com@evil.example:8443/login?x=1");
    expect(link.getAttribute("target")).toBe("_blank");
    expect(link.getAttribute("rel")).toBe("noopener noreferrer");
    expect(open).not.toHaveBeenCalled();
    expect(fetchMock).not.toHaveBeenCalled();

    fireEvent.click(screen.getByRole("button", { name: "I've done it" }));
    expect(await sent()).toEqual({ decision: "answer", source: "web" });
    expect(open).not.toHaveBeenCalled();
  });

  it("shows an address that is not http(s) as text, with Decline only", async () => {
    const { sent } = renderCard({ url: "javascript:alert(1)" });
    expect(screen.queryByRole("link")).toBeNull();
    expect(screen.getByTestId("elicitation-bad-url").textContent).toContain("javascript:alert(1)");
    expect(screen.getAllByRole("button").map((b) => b.textContent)).toEqual(["Decline"]);
    fireEvent.click(screen.getByRole("button", { name: "Decline" }));
    expect(await sent()).toEqual({ decision: "deny", source: "web" });
  });
});
