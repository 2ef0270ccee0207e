import { memo, useMemo } from "react";
import { diffStat, parseDiff } from "./diff";

type Props = {
  diff?: string;
  // Why there is no diff, or that it was cut: shown with or instead of it.
  note?: string;
  label: string;
  // false: the rows have no real line numbers (a diff made from a
  // replacement's text, not from the file): none are shown.
  numbered?: boolean;
  "data-testid"?: string;
};

// DiffView renders a unified diff: added lines green, removed red, hunk
// headers muted, with the line numbers before and after. The file headers
// (--- a/x, +++ b/x) are left out: the file is named around it.
export const DiffView = memo(function DiffView({ diff, note, label, numbered = true, "data-testid": testId = "file-diff" }: Props) {
  const rows = useMemo(() => (diff ? parseDiff(diff).filter((r) => r.kind !== "meta") : []), [diff]);
  const stat = useMemo(() => diffStat(rows), [rows]);
  if (!diff) {
    return <p className="diff-note muted">{note || "No diff to show."}</p>;
  }
  return (
    <div className="diff-block">
      <p className="diff-stat muted">
        <span className="diff-stat-add">+{stat.added}</span> <span className="diff-stat-del">−{stat.removed}</span>
        {note && <span className="diff-note"> · {note}</span>}
      </p>
      <div className={numbered ? "diff" : "diff diff-unnumbered"} data-testid={testId} role="group" aria-label={label}>
        {rows.map((r, i) => (
          <div key={i} className={`diff-row diff-${r.kind}`} data-kind={r.kind}>
            {numbered && (
              <>
                <span className="diff-ln" aria-hidden>
                  {r.oldLine ?? ""}
                </span>
                <span className="diff-ln" aria-hidden>
                  {r.newLine ?? ""}
                </span>
              </>
            )}
            <code className="diff-text">
              {r.text}
            </code>
          </div>
        ))}
      </div>
    </div>
  );
});
