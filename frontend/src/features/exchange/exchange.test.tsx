import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import type { Info, Run } from "../../api/types";
import { ServicesProvider, type Services } from "../../store/context";
import { createAppStore } from "../../store/store";
import { ExportMenu } from "./ExportMenu";
import { ImportRecording } from "./ImportRecording";

afterEach(cleanup);

const run = {
  id: "run_1", agent_id: "ag_1", agent_name: "demo", status: "completed", instructions: "go",
  workspace: "/ws", mode: "ask", provider: "script", model: "", demo: false, unattended: false,
  created_at: 1, updated_at: 1, last_seq: 1, steps: 1, pending_approvals: 0,
  usage: { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, capabilities: ["fork"],
} satisfies Run;

function setup(ui: React.ReactNode, answer: (url: string, init?: RequestInit) => Response, info?: Partial<Info>) {
  const calls: { url: string; init?: RequestInit }[] = [];
  const fetchFake = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ url: String(input), init });
    return answer(String(input), init);
  });
  const store = createAppStore({ runs: [run] });
  if (info) store.getState().setStatic(info as Info, []);
  const services: Services = {
    api: createApi({ fetch: fetchFake as unknown as typeof fetch }),
    store,
    refreshLists: vi.fn(async () => {}),
    refreshRun: vi.fn(async () => {}),
  };
  render(<ServicesProvider value={services}>{ui}</ServicesProvider>);
  return { calls, store, services };
}

describe("ExportMenu", () => {
  it("offers each format as a download in the browser, the video only when the run has one", () => {
    setup(<ExportMenu runId="run_1" />, () => new Response(null, { status: 500 }));
    fireEvent.click(screen.getByRole("button", { name: "Export" }));
    const items = screen.getAllByRole("menuitem");
    expect(items.map((i) => i.textContent)).toEqual(["Recording (.steward)", "Web page (.html)", "Traces (OpenTelemetry JSON)"]);
    expect(items[0]!.getAttribute("href")).toBe("/api/v1/runs/run_1/export?format=steward");
    expect(items[0]!.hasAttribute("download")).toBe(true);
  });

  it("asks the desktop window's save dialog, and says where it saved or why it could not", async () => {
    let n = 0;
    const { calls } = setup(
      <ExportMenu runId="run_1" />,
      () =>
        ++n === 1
          ? Response.json({ path: "/home/me/run_1.steward", bytes: 1234 })
          : Response.json({ error: { code: "invalid", message: "run run_1 has no video" } }, { status: 400 }),
      { desktop: true },
    );
    fireEvent.click(screen.getByRole("button", { name: "Export" }));
    fireEvent.click(screen.getByRole("menuitem", { name: "Recording (.steward)" }));
    expect(await screen.findByRole("status")).toHaveProperty("textContent", "Saved /home/me/run_1.steward");
    expect(calls[0]!.url).toBe("/api/v1/runs/run_1/export/save");
    expect(JSON.parse(String(calls[0]!.init?.body))).toEqual({ format: "steward" });
    fireEvent.click(screen.getByRole("button", { name: "Export" }));
    fireEvent.click(screen.getByRole("menuitem", { name: "Web page (.html)" }));
    expect((await screen.findByRole("alert")).textContent).toContain("has no video");
  });
});

describe("ImportRecording", () => {
  it("sends the chosen file as the body and opens the imported run", async () => {
    const { calls, store, services } = setup(<ImportRecording />, () => Response.json({ ...run, id: "run_2", imported_from: "run_1" }, { status: 201 }));
    const file = new File(["PK fake"], "run_1.steward");
    fireEvent.change(screen.getByLabelText("Recording to import"), { target: { files: [file] } });
    await waitFor(() => expect(store.getState().selectedRunId).toBe("run_2"));
    expect(calls[0]!.url).toBe("/api/v1/recordings");
    expect(calls[0]!.init?.method).toBe("POST");
    expect(calls[0]!.init?.body).toBe(file);
    expect(services.refreshLists).toHaveBeenCalled();
  });

  it("shows the server's reason for a damaged file, named", async () => {
    setup(<ImportRecording />, () =>
      Response.json({ error: { code: "invalid", message: "invalid: events.jsonl: checksum mismatch (the file was changed or damaged)" } }, { status: 400 }),
    );
    const zone = screen.getByTestId("import-zone");
    fireEvent.drop(zone, { dataTransfer: { files: [new File(["x"], "bad.steward")] } });
    expect((await screen.findByTestId("import-error")).textContent).toBe(
      "bad.steward: invalid: events.jsonl: checksum mismatch (the file was changed or damaged)",
    );
  });
});
