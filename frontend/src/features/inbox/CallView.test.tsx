import { cleanup, render as rtlRender, screen } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApi } from "../../api/client";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { CallView, commandOf } from "./CallView";

afterEach(cleanup);

function render(ui: ReactNode) {
  const services = { api: createApi({ fetch: vi.fn() }), store: createAppStore(), refreshLists: vi.fn(async () => {}), refreshRun: vi.fn(async () => {}) };
  return rtlRender(<ServicesProvider value={services}>{ui}</ServicesProvider>);
}

describe("CallView", () => {
  it("shows a command as the line it runs, never JSON-escaped, with its folder", () => {
    render(<CallView runId="run_1" tool="run_command" arguments={{ command: 'go test ./... 2>&1 | tail -n 5 && echo "ok"', cwd: "backend" }} />);
    const view = screen.getByTestId("command-view");
    expect(view.querySelector(".command-line")?.textContent).toBe('$ go test ./... 2>&1 | tail -n 5 && echo "ok"');
    expect(view.textContent).toContain("in backend");
    expect(view.textContent).not.toContain("\\u003e");
  });

  it("shows the diff of a write's preview with its true line numbers", () => {
    const diff = "--- a/calc.py\n+++ b/calc.py\n@@ -11,3 +11,3 @@\n a\n-b\n+c\n d\n";
    render(<CallView runId="run_1" tool="edit_file" arguments={{ path: "calc.py" }} preview={{ diff }} />);
    const view = screen.getByTestId("call-preview");
    expect(view.textContent).toContain("calc.py");
    expect(view.textContent).toContain("12");
    expect(screen.queryByText(/"path"/)).toBeNull();
  });

  it("shows what the diff does not (a binary file)", () => {
    render(<CallView runId="run_1" tool="write_file" arguments={{ path: "x.bin" }} preview={{ note: "x.bin: binary file: 0 bytes before, 3 after" }} />);
    expect(screen.getByTestId("call-preview").textContent).toContain("binary file");
  });

  it("shows other calls' arguments", () => {
    render(<CallView runId="run_1" tool="grep" arguments={{ pattern: "TODO" }} />);
    expect(screen.getByText(/"pattern": "TODO"/)).toBeTruthy();
  });
});

describe("commandOf", () => {
  it("reads run_command's line and folder only", () => {
    expect(commandOf("run_command", { command: "ls", cwd: "." })).toEqual({ command: "ls", cwd: undefined });
    expect(commandOf("run_command", { command: 3 })).toBeUndefined();
    expect(commandOf("write_file", { command: "ls" })).toBeUndefined();
  });
});
