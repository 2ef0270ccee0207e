import type { FileView } from "../../api/types";
import { ChangeRow, type Act } from "./ChangeRow";
import { DiffView } from "./DiffView";
import { externalText } from "./FileList";

type Props = {
  runId: string;
  file: FileView;
  // The paths each op touched, for what an undo takes back with this file.
  opPaths: ReadonlyMap<string, readonly string[]>;
  act: Act;
};

// FileDetail is one file: how it differs now from before the run's first
// change, then each change in order with its own diff and undo.
export function FileDetail({ runId, file: f, opPaths, act }: Props) {
  const ext = externalText(f);
  return (
    <section className="file-detail" aria-label={`File ${f.path}`}>
      <header className="file-detail-head">
        <span className={`file-status file-status-${f.status}`}>{f.status}</span>
        <h3>
          <code>{f.path}</code>
        </h3>
        {ext && <span className="file-external">{ext}</span>}
      </header>
      <h4>Whole run</h4>
      <DiffView
        diff={f.diff}
        // Changed and changed back (created, then deleted): nothing to show.
        note={f.diff_note || (f.status === "unchanged" ? "No difference: the file is as it was before the run." : undefined)}
        label={`Diff of ${f.path} over the run`}
      />
      <h4>Changes, in order</h4>
      <ol className="change-list">
        {f.changes.map((c) => (
          <ChangeRow key={c.seq} runId={runId} path={f.path} change={c} opPaths={opPaths.get(c.op) ?? [f.path]} act={act} />
        ))}
      </ol>
    </section>
  );
}
