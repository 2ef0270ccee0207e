import type { FileView } from "../../api/types";

// externalText says where a file's changes from outside the run's file tools
// came from, or "" when every change was the run's own (or an undo).
export function externalText(f: FileView): string {
  if (!f.external) return "";
  const byCommand = f.changes.some((c) => c.source === "command");
  const outside = f.changes.some((c) => c.source === "external");
  if (byCommand && outside) return "changed by a command and outside the run";
  if (byCommand) return "changed by a command";
  // external is set, and no command did it: a person or another program.
  return "changed outside the run";
}

type Props = { files: readonly FileView[]; selected?: string; onSelect: (path: string) => void };

// FileList is the run's changed files in the order of their first change,
// each with its status against before the run and a mark when a change did
// not come from the run's file tools (those are not the agent's exact edits).
export function FileList({ files, selected, onSelect }: Props) {
  return (
    <ul className="file-list" aria-label="Changed files">
      {files.map((f) => {
        const ext = externalText(f);
        return (
          <li key={f.path}>
            <button
              type="button"
              className={`file-row${f.path === selected ? " selected" : ""}`}
              data-testid="file-row"
              data-path={f.path}
              data-status={f.status}
              aria-pressed={f.path === selected}
              onClick={() => onSelect(f.path)}
            >
              <span className={`file-status file-status-${f.status}`}>{f.status}</span>
              <code className="file-path">{f.path}</code>
              {ext && (
                <span className="file-external" data-testid="file-external" title="Not an edit of the run's file tools">
                  {ext}
                </span>
              )}
              <span className="file-count muted">
                {f.changes.length} change{f.changes.length === 1 ? "" : "s"}
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
