// Diffs in tool calls, read out of what the calls carry: edit_file's
// replacement (its arguments), apply_patch's patch (its arguments), and a
// diff in a call's output (git_diff, or a command that printed one). Pure,
// so a card renders them with the Files tab's diff view.

import type { CallPreview } from "../../api/types";
import { looksLikeDiff, splitFileDiffs, type FileDiff } from "../files/diff";

export type ToolDiff = {
  // Where the diff comes from: what was asked (arguments) or what came back.
  from: "arguments" | "output";
  // What the output says before its diff (git diff --stat's summary).
  preamble?: string;
  files: FileDiff[];
  // false when the line numbers are not known (edit_file's replacement).
  numbered: boolean;
};

type EditArgs = { path?: unknown; old_string?: unknown; new_string?: unknown; replace_all?: unknown };

// toolDiff is the diff a tool call shows, if any. A preview (what the tool
// said the call would change when it was asked about: the diff against the
// file then, with its context and true line numbers) comes first.
export function toolDiff(tool: string, args: unknown, output: string | undefined, preview?: CallPreview): ToolDiff | undefined {
  if (preview?.diff && looksLikeDiff(preview.diff)) return { from: "arguments", files: splitFileDiffs(preview.diff).files, numbered: true };
  if (tool === "edit_file") return editDiff(args as EditArgs, output);
  if (tool === "apply_patch") {
    const patch = (args as { patch?: unknown } | null)?.patch;
    if (typeof patch === "string" && looksLikeDiff(patch)) return { from: "arguments", files: splitFileDiffs(patch).files, numbered: true };
    return undefined;
  }
  if (output && looksLikeDiff(output)) {
    const { preamble, files } = splitFileDiffs(output);
    if (files.length > 0) return { from: "output", preamble: preamble || undefined, files, numbered: true };
  }
  return undefined;
}

// editDiff is edit_file's replacement as a diff: the old text removed, the
// new text added. The output names the line when there was one occurrence
// ("(at line 12)"); without it the rows carry no numbers.
function editDiff(a: EditArgs | null, output: string | undefined): ToolDiff | undefined {
  if (!a || typeof a.old_string !== "string" || typeof a.new_string !== "string") return undefined;
  const path = typeof a.path === "string" ? a.path : "(file)";
  const oldLines = splitLines(a.old_string);
  const newLines = splitLines(a.new_string);
  const at = /\(at line (\d+)\)/.exec(output ?? "");
  const line = at ? Number(at[1]) : 1;
  const diff =
    `@@ -${line},${oldLines.length} +${line},${newLines.length} @@\n` +
    oldLines.map((l) => `-${l}\n`).join("") +
    newLines.map((l) => `+${l}\n`).join("");
  return { from: "arguments", files: [{ path, diff }], numbered: !!at && a.replace_all !== true };
}

function splitLines(s: string): string[] {
  if (s === "") return [];
  const lines = s.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
