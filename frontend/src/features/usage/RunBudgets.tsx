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
// changes. Nothing shows until it is read, or for a run it cannot read
// (a recording in the player).
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
  const [budget, setBudget] = useState<Budget>();
  // The server folds the run's whole log for each read: a run that grows
  // fast (a node every few milliseconds) is read at most every readEveryMs,
  // a change of status at once.
  const last = useRef({ at: 0, status: "" });
  useEffect(() => {
    let live = true;
    const now = Date.now();
    const wait = status !== last.current.status ? 0 : Math.max(0, last.current.at + readEveryMs - now);
    const t = setTimeout(() => {
      last.current = { at: Date.now(), status };
      api.budget(runId).then(
        // Only a budget is shown: an answer without limits is not one.
        (b) => live && setBudget(typeof b?.limits === "object" && b.limits ? b : undefined),
        () => live && setBudget(undefined),
      );
    }, wait);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [api, runId, version, status]);
  const lines = budget ? budgetLines(budget) : [];
  if (lines.length === 0) return null;
  return (
    <>
      <dt>Budgets</dt>
      <dd className="run-budgets" data-testid="run-budgets">
        {lines.map((l, i) => (
          <span key={l.name} className={l.share >= 1 ? "budget-spent" : undefined} data-testid={`budget-${l.name.replace(" ", "-")}`}>
            {i > 0 && " · "}
            {l.name} {l.used} / {l.limit}
          </span>
        ))}
      </dd>
    </>
  );
}
