import { describe, expect, it } from "vitest";
import { keyArgument, keyArgumentMax } from "./keyArgument";

describe("keyArgument", () => {
  it.each([
    ["edit_file", { path: "src/calc.py", old_string: "a", new_string: "b" }, "src/calc.py"],
    ["read_file", { path: "README.md", start_line: 3 }, "README.md"],
    ["write_file", { path: "notes/todo.txt", content: "x" }, "notes/todo.txt"],
    ["list_dir", {}, "."],
    ["list_dir", { path: "src" }, "src"],
    ["run_command", { command: "pytest -q", cwd: "sub" }, "pytest -q"],
    ["browser_open", { url: "https://docs.example.com/guide?x=1" }, "docs.example.com"],
    ["browser_open", { url: "about:blank" }, "about:blank"],
    ["browser_open", { url: "not a url" }, "not a url"],
    ["browser_act", { action: "click", ref: "e12" }, "click e12"],
    ["browser_act", { action: "press", value: "Enter" }, "press Enter"],
    ["grep", { pattern: "TODO", path: "src" }, "TODO in src"],
    ["grep", { pattern: "func main" }, "func main"],
    ["glob", { pattern: "**/*.go" }, "**/*.go"],
    ["ask_user", { question: "Which database?" }, "Which database?"],
    ["git_commit", { message: "Fix the sum\n\nIt overflowed." }, "Fix the sum"],
    ["git_diff", { path: "src/a.go", staged: true }, "src/a.go"],
    ["git_status", {}, ""],
    ["update_plan", { steps: [{ title: "a" }, { title: "b" }] }, "2 steps"],
    ["mcp__github__search_issues", { limit: 5, query: "label:bug" }, "label:bug"],
    ["mcp__fixture__echo", { text: "  " }, ""],
  ])("%s %j is %j", (tool, args, want) => {
    expect(keyArgument(tool, args)).toBe(want);
  });

  it("names the files of a patch: the first and how many more", () => {
    const patch = "--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n--- a/src/b.py\n+++ b/src/b.py\n@@ -1 +1 @@\n-x\n+y\n";
    expect(keyArgument("apply_patch", { patch })).toBe("src/a.py +1");
    expect(keyArgument("apply_patch", { patch: "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" })).toBe("gone.txt");
    expect(keyArgument("apply_patch", { patch: "nonsense" })).toBe("");
  });

  it("takes nothing but an object, and text of the right kind", () => {
    for (const args of [undefined, null, "a string", 42, ["path"], { path: 7 }, { command: { rm: "-rf" } }]) {
      expect(keyArgument("run_command", args)).toBe("");
    }
    expect(keyArgument("read_file", { path: ["a", "b"] })).toBe("");
  });

  it("puts a hostile argument on one line, cut short", () => {
    expect(keyArgument("run_command", { command: "echo a\n\trm -rf /\r\u001b[2J" })).toBe("echo a rm -rf / [2J");
    const long = keyArgument("run_command", { command: "x".repeat(10_000) });
    expect(long).toHaveLength(keyArgumentMax);
    expect(long.endsWith("…")).toBe(true);
  });
});
