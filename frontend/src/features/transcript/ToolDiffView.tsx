import { DiffView } from "../files/DiffView";
import type { ToolDiff } from "./toolDiff";

// Diffs shows each file's part of a tool call's diff under its name, with
// the Files tab's diff view.
export function Diffs({ diff, label }: { diff: ToolDiff; label: string }) {
  return (
    <div className="tool-diffs">
      {diff.files.map((f, i) => (
        <div key={`${f.path}:${i}`} className="tool-diff">
          <code className="tool-diff-path">{f.path}</code>
          <DiffView diff={f.diff} label={`${label}: ${f.path}`} numbered={diff.numbered} data-testid="tool-diff" />
        </div>
      ))}
    </div>
  );
}
