import "./files.css";
import { useMemo, useState } from "react";
import type { FileView } from "../../api/types";
import { useApp } from "../../store/context";
import { actingStatuses } from "../../store/status";
import { selectRun } from "../../store/store";
import { liveRun } from "../controls/liveRun";
import type { Act } from "./ChangeRow";
import { FileDetail } from "./FileDetail";
import { FileList } from "./FileList";
import { RestoreNotice } from "./RestoreNotice";
import { useFilesView } from "./useFilesView";
import { useRestore } from "./useRestore";

// FilesView is the Files tab of a run: the files it changed (or saw changed)
// with their diffs, and undo, revert and rewind. It is mounted only while
// the tab is shown, so it fetches (and follows file.changed) only then.
export function FilesView({ runId }: { runId: string }) {
  const { view, error, reload } = useFilesView(runId);
  const restore = useRestore(runId, reload);
  const status = useApp((s) => liveRun(selectRun(s, runId), s.stream.runs[runId]).status);
  const selectedPath = useApp((s) => s.runView.file);
  const selectFile = useApp((s) => s.selectFile);

  // Generated and git-ignored files (a cache, a build) are listed only
  // when asked: a person reviews what the run meant to change.
  const [showIgnored, setShowIgnored] = useState(false);
  const all = view?.files;
  const ignoredCount = all?.filter((f) => f.ignored).length ?? 0;
  const files = useMemo(() => (showIgnored ? all : all?.filter((f) => !f.ignored)), [all, showIgnored]);
  const file = files?.find((f) => f.path === selectedPath) ?? files?.[0];
  const opPaths = useMemo(() => pathsByOp(all ?? []), [all]);

  const blocked = actingStatuses.has(status)
    ? `Pause the run first: it is ${status}, and could change files while they are restored`
    : restore.busy
      ? "Another restore is on its way"
      : undefined;
  const act: Act = { run: (a) => void restore.run(a), blocked };

  return (
    <section aria-label="Files" className="files-view" data-testid="files-view">
      <header className="files-head">
        <h2>Changed files</h2>
        {files && <span className="muted">{files.length === 0 ? "none yet" : `${files.length} file${files.length === 1 ? "" : "s"}`}</span>}
        {ignoredCount > 0 && (
          <button type="button" className="link" aria-pressed={showIgnored} data-testid="show-ignored" onClick={() => setShowIgnored(!showIgnored)}
            title="Generated files (caches, installed dependencies) and those the workspace's .gitignore names">
            {showIgnored ? "Hide" : "Show"} {ignoredCount} generated or ignored
          </button>
        )}
        <span className="spacer" />
        {all && all.length > 0 && <RevertAll count={all.length} act={act} />}
      </header>
      {restore.outcome && <RestoreNotice outcome={restore.outcome} act={act} onDismiss={restore.dismiss} />}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {!files && !error && <p className="muted">Loading files…</p>}
      {files?.length === 0 && ignoredCount > 0 && (
        <p className="empty-state files-empty">Only generated or ignored files changed: show them above.</p>
      )}
      {files?.length === 0 && ignoredCount === 0 && (
        <p className="empty-state files-empty">
          This run has not changed any file yet. What its file tools and commands change, and what changes outside it while it
          runs, shows here, with a diff and a way to take it back.
        </p>
      )}
      {files && file && (
        <div className="files-body">
          <FileList files={files} selected={file.path} onSelect={selectFile} />
          <FileDetail key={file.path} runId={runId} file={file} opPaths={opPaths} act={act} />
        </div>
      )}
    </section>
  );
}

// RevertAll takes back every change of the run, after a second click that
// says how much that is.
function RevertAll({ count, act }: { count: number; act: Act }) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <button
        type="button"
        className="danger"
        data-testid="revert-run"
        disabled={!!act.blocked}
        title={act.blocked ?? "Put every file this run changed back as it was before the run"}
        onClick={() => setConfirming(true)}
      >
        Revert all changes of this run
      </button>
    );
  }
  return (
    <span className="revert-confirm" role="group" aria-label="Confirm revert">
      <span>
        Put {count === 1 ? "the file" : `all ${count} files`} back as before the run?
      </span>
      <button
        type="button"
        className="danger"
        data-testid="revert-confirm"
        disabled={!!act.blocked}
        title={act.blocked}
        onClick={() => {
          setConfirming(false);
          act.run({ kind: "revert" });
        }}
      >
        Revert all
      </button>
      <button type="button" onClick={() => setConfirming(false)}>
        Keep them
      </button>
    </span>
  );
}

// pathsByOp maps each op to the files it changed, in order.
function pathsByOp(files: readonly FileView[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const f of files) {
    for (const c of f.changes) {
      const list = m.get(c.op) ?? [];
      if (!list.includes(f.path)) list.push(f.path);
      m.set(c.op, list);
    }
  }
  return m;
}
