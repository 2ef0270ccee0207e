// A reader of unified diff text (what the server's journal sends: difflib's
// format, as `diff -u` and git write it) into rows to render. Hunk headers
// give the line counts, so a removed line that itself starts with "--" is
// not mistaken for a file header.

export type DiffRowKind = "meta" | "hunk" | "add" | "del" | "ctx" | "note";

export type DiffRow = {
  kind: DiffRowKind;
  // The line as written, with its leading +, - or space.
  text: string;
  // Line numbers before and after, where the row has them.
  oldLine?: number;
  newLine?: number;
};

const hunkHeader = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

// parseDiff splits a unified diff into rows. Lines outside hunks (---, +++,
// diff --git, index) are meta; "\ No newline at end of file" is a note.
export function parseDiff(text: string): DiffRow[] {
  const lines = text.split("\n");
  // The text ends with a newline: its last "line" is empty, not a row.
  if (lines.at(-1) === "") lines.pop();
  const rows: DiffRow[] = [];
  let oldLeft = 0;
  let newLeft = 0;
  let oldLine = 0;
  let newLine = 0;
  for (const raw of lines) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.startsWith("\\")) {
      rows.push({ kind: "note", text: line });
      continue;
    }
    if (oldLeft > 0 || newLeft > 0) {
      const sign = line[0];
      if (sign === "+" && newLeft > 0) {
        rows.push({ kind: "add", text: line, newLine: newLine++ });
        newLeft--;
        continue;
      }
      if (sign === "-" && oldLeft > 0) {
        rows.push({ kind: "del", text: line, oldLine: oldLine++ });
        oldLeft--;
        continue;
      }
      // A context line; an empty one is a context line whose space was
      // trimmed on the way.
      if ((sign === " " || line === "") && oldLeft > 0 && newLeft > 0) {
        rows.push({ kind: "ctx", text: line, oldLine: oldLine++, newLine: newLine++ });
        oldLeft--;
        newLeft--;
        continue;
      }
      // The counts do not match the text: read on as if the hunk ended.
      oldLeft = newLeft = 0;
    }
    const m = hunkHeader.exec(line);
    if (m) {
      oldLine = Number(m[1]);
      oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      newLine = Number(m[3]);
      newLeft = m[4] === undefined ? 1 : Number(m[4]);
      rows.push({ kind: "hunk", text: line });
      continue;
    }
    rows.push({ kind: "meta", text: line });
  }
  return rows;
}

// diffStat counts the added and removed lines of parsed rows.
export function diffStat(rows: readonly DiffRow[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const r of rows) {
    if (r.kind === "add") added++;
    else if (r.kind === "del") removed++;
  }
  return { added, removed };
}

// FileDiff is one file's part of a multi-file diff.
export type FileDiff = { path: string; diff: string };

const gitHeader = /^diff --git a\/(.+?) b\/(.+)$/;

// splitFileDiffs cuts a diff of several files (git diff, a patch) into one
// diff per file, named by its new path (its old one for a deletion). What
// comes before the first file (git diff --stat's summary) is the preamble.
// A file starts at git's "diff --git" line, or at a "--- " line followed by
// "+++ " outside a hunk (the hunk headers' counts say where a hunk ends, so
// a removed line that starts with "--" starts nothing).
export function splitFileDiffs(text: string): { preamble: string; files: FileDiff[] } {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const files: { path: string; lines: string[]; awaitsHeader: boolean }[] = [];
  const preamble: string[] = [];
  let cur: (typeof files)[number] | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (oldLeft > 0 || newLeft > 0) {
      const sign = line[0];
      if (sign === "+") newLeft--;
      else if (sign === "-") oldLeft--;
      else if (sign === " " || line === "") {
        oldLeft--;
        newLeft--;
      }
      if (sign !== "\\") {
        cur?.lines.push(line);
        continue;
      }
    }
    const git = gitHeader.exec(line);
    const plain = line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ") && !cur?.awaitsHeader;
    if (git || plain) {
      cur = { path: git ? git[2]! : "", lines: [], awaitsHeader: !!git };
      files.push(cur);
    }
    if (!cur) {
      preamble.push(line);
      continue;
    }
    cur.lines.push(line);
    if (line.startsWith("--- ") || line.startsWith("+++ ")) {
      cur.awaitsHeader = false;
      const p = pathOf(line.slice(4));
      if (p && (line.startsWith("+++ ") || !cur.path)) cur.path = p;
    }
    const m = hunkHeader.exec(line);
    if (m) {
      oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      newLeft = m[4] === undefined ? 1 : Number(m[4]);
    }
  }
  return {
    preamble: preamble.join("\n").trim(),
    files: files.map((f) => ({ path: f.path || "(file)", diff: f.lines.join("\n") + "\n" })),
  };
}

// pathOf reads a path from a ---/+++ line: without its a/ or b/ prefix and
// any tab-separated time; undefined for /dev/null.
function pathOf(s: string): string | undefined {
  const p = s.split("\t")[0]!.trim();
  if (p === "/dev/null" || p === "") return undefined;
  return p.replace(/^[ab]\//, "");
}

// looksLikeDiff says whether a text holds a unified diff: a file header and
// a hunk header.
export function looksLikeDiff(text: string): boolean {
  return /^(diff --git |--- )/m.test(text) && /^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/m.test(text);
}
