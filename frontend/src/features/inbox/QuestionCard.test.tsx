import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Question } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { QuestionCard } from "./QuestionCard";

afterEach(cleanup);

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function renderQuestion(question: Question, status = 200, body: unknown = { id: "ia_q", status: "answered" }) {
  const fetchMock = vi.fn(async (..._args: Parameters<typeof fetch>) => json(status, body));
  render(
    <ServicesProvider
      value={{ api: createApi({ fetch: fetchMock as unknown as typeof fetch }), store: createAppStore(), refreshLists: vi.fn(async () => {}), refreshRun: vi.fn(async () => {}) }}
    >
      <QuestionCard interactionId="ia_q" question={question} />
    </ServicesProvider>,
  );
  const sent = async () => {
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/v1/interactions/ia_q/answer");
    return JSON.parse(String(init?.body)) as unknown;
  };
  return { fetchMock, sent };
}

const send = () => screen.getByTestId("question-send") as HTMLButtonElement;
const options = [{ label: "red", description: "warm" }, { label: "blue" }, { label: "green" }];

describe("QuestionCard", () => {
  it("sends one chosen option", async () => {
    const { sent } = renderQuestion({ text: "Which colour?", options });
    expect(screen.getByText("Which colour?")).toBeTruthy();
    expect(screen.getAllByRole("radio")).toHaveLength(3);
    expect(screen.queryByRole("textbox")).toBeNull(); // no "other" unless allowed
    expect(send().disabled).toBe(true);

    fireEvent.click(screen.getByRole("radio", { name: /red/ }));
    fireEvent.click(screen.getByRole("radio", { name: "blue" }));
    fireEvent.click(send());
    expect(await sent()).toEqual({ decision: "answer", choices: ["blue"], source: "web" });
    expect((await screen.findByTestId("question-sent")).textContent).toBe("Answer sent: blue");
  });

  it("sends several chosen options and an answer of one's own", async () => {
    const { sent } = renderQuestion({ text: "Which colours?", options, multiple: true, allow_other: true });
    expect(screen.getAllByRole("checkbox")).toHaveLength(4); // the options and Other
    fireEvent.click(screen.getByRole("checkbox", { name: /red/ }));
    fireEvent.click(screen.getByRole("checkbox", { name: "green" }));
    fireEvent.change(screen.getByRole("textbox", { name: "Other answer" }), { target: { value: " teal " } });
    expect((screen.getByRole("checkbox", { name: "Other" }) as HTMLInputElement).checked).toBe(true);
    fireEvent.click(send());
    expect(await sent()).toEqual({ decision: "answer", choices: ["red", "green"], text: "teal", source: "web" });
  });

  it("sends only the other text when Other is the single choice", async () => {
    const { sent } = renderQuestion({ text: "Which colour?", options, allow_other: true });
    fireEvent.click(screen.getByRole("radio", { name: /red/ }));
    fireEvent.change(screen.getByRole("textbox", { name: "Other answer" }), { target: { value: "purple" } });
    expect((screen.getByRole("radio", { name: /red/ }) as HTMLInputElement).checked).toBe(false);
    expect((screen.getByRole("radio", { name: "Other" }) as HTMLInputElement).checked).toBe(true);
    fireEvent.click(send());
    expect(await sent()).toEqual({ decision: "answer", text: "purple", source: "web" });
  });

  it("asks for free text when there are no options", async () => {
    const { sent } = renderQuestion({ text: "What should the file be called?" });
    expect(screen.queryByRole("radio")).toBeNull();
    expect(send().disabled).toBe(true);
    fireEvent.change(screen.getByRole("textbox", { name: "Answer" }), { target: { value: "notes.md" } });
    fireEvent.click(send());
    expect(await sent()).toEqual({ decision: "answer", text: "notes.md", source: "web" });
  });

  it("declines to answer", async () => {
    const { sent } = renderQuestion({ text: "Which colour?", options });
    fireEvent.click(screen.getByTestId("question-decline"));
    expect(await sent()).toEqual({ decision: "deny", source: "web" });
    expect((await screen.findByTestId("question-sent")).textContent).toBe("Declined");
  });

  it("says already answered on a 409", async () => {
    renderQuestion({ text: "Free?" }, 409, { error: { code: "conflict", message: "interaction ia_q: conflict" } });
    fireEvent.change(screen.getByRole("textbox", { name: "Answer" }), { target: { value: "yes" } });
    fireEvent.click(send());
    expect((await screen.findByRole("alert")).textContent).toBe("already answered");
  });
});
