import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { createApi } from "../../api/client";
import type { Agent, DirList, Info } from "../../api/types";
import { ServicesProvider } from "../../store/context";
import { createAppStore } from "../../store/store";
import { NewRunForm } from "./NewRunForm";

const info: Info = { version: "0.1.0", default_workspace: "/home/me/ws", provider: "script", demo: true, note: "", sandbox: { available: true } };
const agent = { id: "ag_1", name: "demo", demo: true, effective_provider: "script", effective_model: "" } as Agent;

// The server's disk: folder → its subfolders.
const disk: Record<string, string[]> = {
  "/home/me": ["other", "ws", ".config"],
  "/home/me/ws": ["src", "docs"],
  "/home/me/ws/src": [],
  "/home/me/other": [],
  "/home/me/.config": [],
};

function listing(path: string): DirList {
  const parent = path.slice(0, path.lastIndexOf("/")) || "/";
  return { path, parent, dirs: disk[path]!.map((name) => ({ name, path: `${path}/${name}` })), truncated: false, home: "/home/me" };
}

afterEach(cleanup);

// renderForm renders the new-run form over a fake GET /api/v1/fs/dirs and
// returns the paths it was asked for.
function renderForm(gone: string[] = []) {
  const asked: string[] = [];
  const fetchFake = async (input: RequestInfo | URL) => {
    const url = new URL(String(input), "http://test");
    if (url.pathname !== "/api/v1/fs/dirs") throw new Error(`unexpected fetch ${url}`);
    const path = url.searchParams.get("path") ?? "";
    asked.push(path);
    const p = path === "" ? "/home/me" : path;
    const [status, body] =
      disk[p] && !gone.includes(p)
        ? [200, listing(p)]
        : [404, { error: { code: "not_found", message: `folder "${p}" does not exist` } }];
    return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  };
  const api = createApi({ fetch: fetchFake as typeof fetch });
  const store = createAppStore({ info, agents: [agent] });
  render(
    <ServicesProvider value={{ api, store, refreshLists: async () => {}, refreshRun: async () => {} }}>
      <NewRunForm />
    </ServicesProvider>,
  );
  return { asked, workspace: () => screen.getByRole<HTMLInputElement>("textbox", { name: "Workspace" }) };
}

async function openPicker() {
  fireEvent.click(screen.getByRole("button", { name: "Browse folders" }));
  return screen.findByRole("dialog", { name: "Choose a workspace folder" });
}

async function shows(picker: HTMLElement, path: string) {
  await waitFor(() => expect(within(picker).getByTestId("picker-path").textContent).toBe(path));
}

function folders(picker: HTMLElement): string[] {
  return within(picker)
    .getAllByRole("listitem")
    .map((li) => li.textContent ?? "");
}

describe("FolderPicker", () => {
  it("starts at the workspace, enters a folder, goes up and chooses", async () => {
    const { asked, workspace } = renderForm();
    const browse = screen.getByRole("button", { name: "Browse folders" });
    expect(browse.getAttribute("aria-expanded")).toBe("false");

    const picker = await openPicker();
    expect(browse.getAttribute("aria-expanded")).toBe("true");
    await shows(picker, "/home/me/ws");
    expect(folders(picker)).toEqual(["src", "docs"]);

    fireEvent.click(within(picker).getByRole("button", { name: "src" }));
    await shows(picker, "/home/me/ws/src");
    expect(within(picker).getByText("No subfolders.")).toBeTruthy();

    fireEvent.click(within(picker).getByRole("button", { name: "Up" }));
    await shows(picker, "/home/me/ws");
    fireEvent.click(within(picker).getByRole("button", { name: "Up" }));
    await shows(picker, "/home/me");
    expect(folders(picker)).toEqual(["other", "ws", ".config"]);

    fireEvent.click(within(picker).getByRole("button", { name: "other" }));
    await shows(picker, "/home/me/other");
    fireEvent.click(within(picker).getByRole("button", { name: "Use this folder" }));

    expect(workspace().value).toBe("/home/me/other");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.activeElement).toBe(browse);
    expect(asked).toEqual(["/home/me/ws", "/home/me/ws/src", "/home/me/ws", "/home/me", "/home/me/other"]);
  });

  it("opens at home when the workspace is not an existing absolute folder", async () => {
    const { asked, workspace } = renderForm();
    fireEvent.change(workspace(), { target: { value: "relative/dir" } });
    let picker = await openPicker();
    await shows(picker, "/home/me");
    fireEvent.click(within(picker).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();

    fireEvent.change(workspace(), { target: { value: "/home/me/missing" } });
    picker = await openPicker();
    await shows(picker, "/home/me");
    expect(within(picker).queryByRole("alert")).toBeNull();
    expect(asked).toEqual(["", "/home/me/missing", ""]);
  });

  it("shows an error inline and keeps the folder it is in", async () => {
    renderForm(["/home/me/ws/docs"]);
    const picker = await openPicker();
    await shows(picker, "/home/me/ws");
    fireEvent.click(within(picker).getByRole("button", { name: "docs" }));
    expect((await within(picker).findByRole("alert")).textContent).toBe('folder "/home/me/ws/docs" does not exist');
    expect(within(picker).getByTestId("picker-path").textContent).toBe("/home/me/ws");

    fireEvent.click(within(picker).getByRole("button", { name: "src" }));
    await shows(picker, "/home/me/ws/src");
    expect(within(picker).queryByRole("alert")).toBeNull();
  });

  it("closes on Escape without changing the workspace", async () => {
    const { workspace } = renderForm();
    const picker = await openPicker();
    await shows(picker, "/home/me/ws");
    fireEvent.click(within(picker).getByRole("button", { name: "src" }));
    await shows(picker, "/home/me/ws/src");
    fireEvent.keyDown(document.activeElement ?? picker, { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(workspace().value).toBe("/home/me/ws");
  });
});
