import type { ToolNode } from "../../store/reducer";
import { describeProgress, progressShare } from "../../store/progressFold";

// ToolProgressRow shows, on a running call's card, how far the call has got
// as its tool last reported (tool.progress): a bar when the total is known,
// and always the count and the server's message. Once the call ended its
// output says the rest, and the row is gone.
export function ToolProgressRow({ n }: { n: ToolNode }) {
  const p = n.progress;
  if (!p || n.status !== "running") return null;
  const share = progressShare(p);
  const text = describeProgress(p);
  return (
    <div className="tool-progress" data-testid="tool-progress">
      {share !== undefined && (
        <progress className="tool-progress-bar" aria-label={`progress of ${n.tool}`} max={1} value={share}>
          {Math.floor(share * 100)}%
        </progress>
      )}
      <span className="tool-progress-text muted" role="status" title={p.message}>
        {text}
      </span>
    </div>
  );
}
