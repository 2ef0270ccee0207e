import "./usage.css";
import { useEffect, useRef, useState } from "react";
import type { Budget } from "../../api/types";
import { useApp, useServices } from "../../store/context";
import { terminalStatuses } from "../../store/status";
import { selectRun } from "../../store/store";
import { dollars, tokens } from "./money";

// minutes reads a wall time of calls.
function minutes(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
}

// readEveryMs bounds how often a growing run's budgets are read.
const readEveryMs = 2000;

// budgetLines are the run's budgets that are set, each as used / limit,
// with how much of it is used.
export function budgetLines(b: Budget): { name: string; used: string; limit: string; share: number }[] {
  const l = b.limits;
  const out: { name: string; used: string; limit: string; share: number }[] = [];
  if (l.max_steps) out.push({ name: "steps", used: String(b.steps), limit: String(l.max_steps), share: b.steps / l.max_steps });
  if (l.max_tokens) out.push({ name: "tokens", used: tokens(b.tokens), limit: tokens(l.max_tokens), share: b.tokens / l.max_tokens });
  if (l.max_cost_usd) out.push({ name: "cost", used: dollars(b.cost_usd), limit: dollars(l.max_cost_usd), share: b.cost_usd / l.max_cost_usd });
  if (l.max_wall_time_ms)
    out.push({ name: "wall time", used: minutes(b.wall_time_ms), limit: minutes(l.max_wall_time_ms), share: b.wall_time_ms / l.max_wall_time_ms });
  return out;
}

// RunBudgets is the run's budgets as used / limit, read from the server
// (the engine's own count) again whenever the run's status or its graph
// changes.
//
// They are a line of the run's facts of their own, one line high, there
// from the first render with a mark while they are read: when the answer
// came in as a new line, the header grew and moved the pane switch below
// it under the person's pointer. Every run started here has a budget (an
// agent's max_steps is at least 1), and the store holds nothing that says
// otherwise (run.created's max_steps is not kept, nor in the run's row),
// so the line is always reserved; it goes only when the first read fails
// (a run the server cannot answer for) or the answer sets no limit.
export function RunBudgets({ runId }: { runId: string }) {
  const { api } = useServices();
  // A change of status or of the nodes is when a budget can have moved. A
  // run the server says has ended spent what it spent: it is read once (and
  // again if a follow-up moves it on), not as its history is read in, which
  // for a 100,000-event run meant the server folding the whole log (230 ms)
  // several times while the page asked it for that log.
  const ended = useApp((s) => {
    const st = selectRun(s, runId)?.status;
    return st !== undefined && terminalStatuses.has(st) ? st : undefined;
  });
  const version = useApp((s) => {
    if (ended) return `ended:${ended}`;
    const r = s.stream.runs[runId];
    return `${r?.status ?? ""}:${r?.nodeOrder.length ?? 0}:${r?.statusLog.length ?? 0}`;
  });
  const streamed = useApp((s) => s.stream.runs[runId]?.status ?? "");
  const status = ended ?? streamed;
  // The answer for this run: undefined while it is read, null when there is
  // none to show. A read that fails after one succeeded keeps what is shown.
  const [read, setRead] = useState<{ runId: string; budget: Budget | null }>();
  const budget = read?.runId === runId ? read.budget : undefined;
  // A run that grows fast (a node every few milliseconds) is read at most
  // every readEveryMs, a change of status at once. (The server answers a run
  // it drives from the engine's state, an ended one from a fold it keeps by
  // the run's last seq: a read is cheap, but not free.)
  const last = useRef({ at: 0, status: "" });
  useEffect(() => {
    let live = true;
    const now = Date.now();
    const wait = status !== last.current.status ? 0 : Math.max(0, last.current.at + readEveryMs - now);
    const t = setTimeout(() => {
      last.current = { at: Date.now(), status };
      api.budget(runId).then(
        // Only a budget is shown: an answer without limits is not one.
        (b) => live && setRead({ runId, budget: typeof b?.limits === "object" && b.limits ? b : null }),
        () => live && setRead((was) => (was?.runId === runId && was.budget ? was : { runId, budget: null })),
      );
    }, wait);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [api, runId, version, status]);
  if (budget === undefined) {
    return (
      <div className="run-budgets-line" data-testid="run-budgets-line">
        <dt>Budgets</dt>
        <dd className="run-budgets-reading" data-testid="run-budgets-reading" aria-busy="true" aria-label="reading the budgets">
          …
        </dd>
      </div>
    );
  }
  const lines = budget ? budgetLines(budget) : [];
  if (lines.length === 0) return null;
  const text = lines.map((l) => `${l.name} ${l.used} / ${l.limit}`).join(" · ");
  return (
    <div className="run-budgets-line" data-testid="run-budgets-line">
      <dt>Budgets</dt>
      <dd className="run-budgets" data-testid="run-budgets" title={text}>
        {lines.map((l, i) => (
          <span key={l.name} className={l.share >= 1 ? "budget-spent" : undefined} data-testid={`budget-${l.name.replace(" ", "-")}`}>
            {i > 0 && " · "}
            {l.name} {l.used} / {l.limit}
          </span>
        ))}
      </dd>
    </div>
  );
}
