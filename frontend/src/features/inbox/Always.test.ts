import { describe, expect, it } from "vitest";
import { alwaysText, grantSubject } from "./Always";

describe("grantSubject and alwaysText", () => {
  it("names the file, its folder, or any file", () => {
    expect(grantSubject("edit_file", { path: "./src/calc.py" })).toEqual({ kind: "path", path: "src/calc.py", dir: "src" });
    expect(alwaysText("edit_file", { path: "src/calc.py" }, { scope: "run", extent: "call" })).toBe("Always allow edit_file on src/calc.py in this run");
    expect(alwaysText("edit_file", { path: "src/calc.py" }, { scope: "agent", extent: "folder" })).toBe("Always allow edit_file on any file in src/ for this agent");
    expect(alwaysText("edit_file", { path: "calc.py" }, { scope: "everywhere", extent: "any" })).toBe("Always allow edit_file on any file everywhere");
    expect(grantSubject("write_file", { path: "calc.py" })).toEqual({ kind: "path", path: "calc.py", dir: undefined });
  });

  it("names a command, a site, or the arguments", () => {
    expect(alwaysText("run_command", { command: " pytest -q " }, { scope: "run", extent: "call" })).toBe("Always allow run_command for pytest -q in this run");
    expect(alwaysText("browser_open", { url: "https://Docs.Example.com/a" }, { scope: "run", extent: "call" })).toBe("Always allow browser_open on docs.example.com in this run");
    expect(alwaysText("browser_click", { ref: "e3" }, { scope: "run", extent: "call" })).toBe("Always allow browser_click on this page's site in this run");
    expect(alwaysText("mcp__x__y", { q: 1 }, { scope: "run", extent: "any" })).toBe("Always allow mcp__x__y with any arguments in this run");
    expect(grantSubject("browser_open", { url: "not a url" })).toEqual({ kind: "none" });
  });
});
