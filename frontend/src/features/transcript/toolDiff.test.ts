import { describe, expect, it } from "vitest";
import { parseDiff, splitFileDiffs } from "../files/diff";
import { toolDiff } from "./toolDiff";

const gitDiff = `2 files changed, 2 insertions(+), 1 deletion(-)
 a.txt | 2 +-
 b.txt | 1 +

diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,2 @@
 keep
-old
+new
diff --git a/b.txt b/b.txt
new file mode 100644
--- /dev/null
+++ b/b.txt
@@ -0,0 +1 @@
+hello
`;

describe("splitFileDiffs", () => {
  it("cuts git diff output into files, after its summary", () => {
    const { preamble, files } = splitFileDiffs(gitDiff);
    expect(preamble).toBe("2 files changed, 2 insertions(+), 1 deletion(-)\n a.txt | 2 +-\n b.txt | 1 +");
    expect(files.map((f) => f.path)).toEqual(["a.txt", "b.txt"]);
    expect(parseDiff(files[0]!.diff).filter((r) => r.kind === "add" || r.kind === "del").map((r) => r.text)).toEqual(["-old", "+new"]);
  });

  it("cuts a plain patch at its --- headers, not at a removed line that starts with --", () => {
    const patch = "--- a/x.sql\n+++ b/x.sql\n@@ -1 +1 @@\n--- a comment\n+++ not a header\n--- y.txt\n+++ y.txt\n@@ -1 +1 @@\n-a\n+b\n";
    const { files } = splitFileDiffs(patch);
    expect(files.map((f) => f.path)).toEqual(["x.sql", "y.txt"]);
  });
});

describe("toolDiff", () => {
  it("shows edit_file's replacement as a diff, at the line its output names", () => {
    const d = toolDiff("edit_file", { path: "a.go", old_string: "x := 1\n", new_string: "x := 2\ny := 3\n" }, "replaced 1 occurrence in a.go (at line 12)")!;
    expect(d.from).toBe("arguments");
    expect(d.numbered).toBe(true);
    expect(d.files).toEqual([{ path: "a.go", diff: "@@ -12,1 +12,2 @@\n-x := 1\n+x := 2\n+y := 3\n" }]);
  });

  it("leaves out line numbers when edit_file replaced in several places", () => {
    const d = toolDiff("edit_file", { path: "a", old_string: "a", new_string: "b", replace_all: true }, "replaced 2 occurrences in a (at lines 1, 5)")!;
    expect(d.numbered).toBe(false);
  });

  it("shows apply_patch's patch, and git_diff's output, as diffs", () => {
    expect(toolDiff("apply_patch", { patch: gitDiff.slice(gitDiff.indexOf("diff --git")) }, "patched 2 files")!.files).toHaveLength(2);
    const d = toolDiff("git_diff", {}, gitDiff)!;
    expect(d.from).toBe("output");
    expect(d.preamble).toContain("2 files changed");
  });

  it("finds no diff in a plain output", () => {
    expect(toolDiff("read_file", { path: "a" }, "--- not a diff\njust text")).toBeUndefined();
    expect(toolDiff("edit_file", { path: "a" }, "")).toBeUndefined();
  });
});

describe("toolDiff with the tool's preview", () => {
  // What the server's fs tools send: the diff against the file as it was
  // asked about, with context and true line numbers.
  const preview = {
    diff: "--- a/calc.py\n+++ b/calc.py\n@@ -9,7 +9,8 @@\n line 9\n line 10\n line 11\n-line 12\n+line twelve\n+line 12b\n line 13\n line 14\n line 15\n",
  };

  it("shows the preview, numbered from the file's true lines, over the arguments' replacement", () => {
    const d = toolDiff("edit_file", { path: "calc.py", old_string: "line 12\n", new_string: "line twelve\nline 12b\n" }, undefined, preview);
    expect(d?.numbered).toBe(true);
    expect(d?.files.map((f) => f.path)).toEqual(["calc.py"]);
    const rows = parseDiff(d!.files[0]!.diff);
    expect(rows.find((r) => r.kind === "del")).toMatchObject({ text: "-line 12", oldLine: 12 });
    expect(rows.filter((r) => r.kind === "add").map((r) => r.newLine)).toEqual([12, 13]);
    expect(rows.filter((r) => r.kind === "ctx")).toHaveLength(6);
  });

  it("falls back to the arguments when the preview holds no diff (a binary file's note)", () => {
    const d = toolDiff("edit_file", { path: "a", old_string: "x", new_string: "y" }, undefined, { note: "a: binary file" });
    expect(d?.numbered).toBe(false);
  });
});
