import "./files.css";
import { useApp } from "../../store/context";
import type { FileTouch } from "../../store/fileFold";

// ToolFiles lists, on a tool call's card, the files the call changed, each
// with a way to its diff in the Files tab. The events carry content sums,
// not lines, so it says what happened to each file, not how much.
export function ToolFiles({ files }: { files: readonly FileTouch[] }) {
  const showFile = useApp((s) => s.showFile);
  return (
    <ul className="tool-files" aria-label="Files changed">
      {files.map((f) => (
        <li key={f.path} data-testid="tool-file" data-path={f.path} data-kind={f.kind}>
          <span className={`change-kind change-kind-${f.kind}`}>{f.kind}</span>
          <code>{f.path}</code>
          <button type="button" className="link" aria-label={`Show diff of ${f.path}`} onClick={() => showFile(f.path)}>
            Show diff
          </button>
        </li>
      ))}
    </ul>
  );
}
