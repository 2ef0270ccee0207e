import { describe, expect, it } from "vitest";
import { diffStat, parseDiff } from "./diff";

describe("parseDiff", () => {
  it("reads headers, hunks, added, removed and context lines with their numbers", () => {
    const text = [
      "--- a/notes.txt",
      "+++ b/notes.txt",
      "@@ -1,3 +1,4 @@",
      " one",
      "-two",
      "+2",
      "+2b",
      " three",
      "@@ -10 +11 @@",
      "-ten",
      "+10",
      "\\ No newline at end of file",
      "",
    ].join("\n");
    const rows = parseDiff(text);
    expect(rows.map((r) => [r.kind, r.text, r.oldLine, r.newLine])).toEqual([
      ["meta", "--- a/notes.txt", undefined, undefined],
      ["meta", "+++ b/notes.txt", undefined, undefined],
      ["hunk", "@@ -1,3 +1,4 @@", undefined, undefined],
      ["ctx", " one", 1, 1],
      ["del", "-two", 2, undefined],
      ["add", "+2", undefined, 2],
      ["add", "+2b", undefined, 3],
      ["ctx", " three", 3, 4],
      ["hunk", "@@ -10 +11 @@", undefined, undefined],
      ["del", "-ten", 10, undefined],
      ["add", "+10", undefined, 11],
      ["note", "\\ No newline at end of file", undefined, undefined],
    ]);
    expect(diffStat(rows)).toEqual({ added: 3, removed: 2 });
  });

  it("takes a removed line starting with -- for content, not a file header", () => {
    const rows = parseDiff("--- a/x.md\n+++ b/x.md\n@@ -1,2 +1 @@\n--- rule\n+++ plus\n-old\n");
    // The hunk says 2 old lines and 1 new: "--- rule" and "-old" are removals,
    // "+++ plus" the one addition.
    expect(rows.slice(3).map((r) => r.kind)).toEqual(["del", "add", "del"]);
  });

  it("reads a new file against /dev/null and a trimmed empty context line", () => {
    const created = parseDiff("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n");
    expect(created.filter((r) => r.kind === "add").map((r) => r.newLine)).toEqual([1, 2]);
    const trimmed = parseDiff("@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n");
    expect(trimmed.map((r) => r.kind)).toEqual(["hunk", "ctx", "ctx", "del", "add"]);
  });

  it("gives no rows for no text, and meta rows for text outside any hunk", () => {
    expect(parseDiff("")).toEqual([]);
    expect(parseDiff("Binary files differ\n")).toEqual([{ kind: "meta", text: "Binary files differ" }]);
  });
});
