import { describe, expect, it } from "vitest";
import { fileDiff, lines, opcodes } from "./unifiedDiff";

const enc = (s: string) => new TextEncoder().encode(s);

// The expected texts are what the server's workspace.Diff (difflib) writes
// for the same contents.
describe("fileDiff", () => {
  const cases: { name: string; a?: string; b?: string; diff?: string; note?: string }[] = [
    {
      name: "one line changed in the middle",
      a: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
      b: "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n",
      diff: "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
    },
    { name: "created, no last newline", b: "a\nb", diff: "--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n" },
    { name: "deleted", a: "a\nb\n", diff: "--- a/f.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n" },
    {
      name: "two changes far apart: two hunks",
      a: Array.from({ length: 20 }, (_, i) => `${i + 1}\n`).join(""),
      b: "one\n" + Array.from({ length: 18 }, (_, i) => `${i + 2}\n`).join("") + "twenty\nextra\n",
      diff:
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -17,4 +17,5 @@\n 17\n 18\n 19\n-20\n+twenty\n+extra\n",
    },
    { name: "a line removed", a: "a\nb\nc\n", b: "a\nc\n", diff: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,2 @@\n a\n-b\n c\n" },
    { name: "single lines", a: "x", b: "y", diff: "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-x\n+y\n" },
    { name: "same content", a: "same\n", b: "same\n", note: "no change in content" },
    { name: "binary", a: "a\u0000b", b: "c", note: "binary file: 3 bytes before, 1 after" },
    { name: "neither", note: "no difference: the file did not exist before and does not now" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = fileDiff("f.txt", c.a === undefined ? undefined : enc(c.a), c.b === undefined ? undefined : enc(c.b));
      expect(got).toEqual({ ...(c.diff ? { diff: c.diff } : {}), ...(c.note ? { note: c.note } : {}) });
    });
  }

  it("cuts a diff over 128 KiB and says so", () => {
    const big = Array.from({ length: 20_000 }, (_, i) => `line ${i} of a long file\n`).join("");
    const got = fileDiff("f.txt", undefined, enc(big));
    expect(got.diff?.length).toBe(128 << 10);
    expect(got.note).toMatch(/^diff cut at 128 KiB of \d+$/);
  });
});

describe("opcodes", () => {
  // A seeded generator: the same cases every run.
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const randomLines = (n: number) => Array.from({ length: n }, () => `${"abcde"[rand(5)]}\n`);

  it("turns a into b, keeping at most as many lines as match", () => {
    for (let k = 0; k < 300; k++) {
      const a = randomLines(rand(30));
      const b = randomLines(rand(30));
      const ops = opcodes(a, b);
      const rebuilt: string[] = [];
      let i = 0;
      let j = 0;
      for (const o of ops) {
        expect(o.i1).toBe(i);
        expect(o.j1).toBe(j);
        if (o.tag === "equal") expect(a.slice(o.i1, o.i2)).toEqual(b.slice(o.j1, o.j2));
        rebuilt.push(...(o.tag === "equal" ? a.slice(o.i1, o.i2) : b.slice(o.j1, o.j2)));
        i = o.i2;
        j = o.j2;
      }
      expect([i, j]).toEqual([a.length, b.length]);
      expect(rebuilt).toEqual(b);
    }
  });

  it("splits lines as the server does", () => {
    expect(lines(enc("a\nb"))).toEqual(["a\n", "b\n"]);
    expect(lines(enc("a\n\n"))).toEqual(["a\n", "\n"]);
    expect(lines(enc(""))).toEqual([]);
  });
});
