import { useApp } from "../../store/context";
import { can, title } from "./liveRun";
import { useLiveRun } from "./useLiveRun";
import { useCommand } from "./useCommand";

// BreakToggle sets or clears a breakpoint on a tool for the rest of a run:
// "pause before this tool". The run then pauses before each later call of
// it and shows the call it would make, as the agent's break_before does.
// The breakpoint is the run's (the agent is not changed) and is recorded in
// its log, so it holds after a restart.
export function BreakToggle({ runId, tool }: { runId: string; tool: string }) {
  const live = useLiveRun(runId);
  const { send, busy, error } = useCommand(runId);
  const on = useApp((s) => s.stream.runs[runId]?.breakBefore.includes(tool) ?? false);
  const cmd = on ? "unbreak" : "break";
  const legal = can(live, cmd);
  return (
    <div className="break-toggle">
      <label title={legal ? undefined : title(cmd, live)}>
        <input
          type="checkbox"
          aria-label={`Pause before every ${tool} call`}
          data-testid="break-toggle"
          checked={on}
          disabled={busy || !legal}
          onChange={() => void send(cmd, { tool })}
        />{" "}
        Pause before every <code>{tool}</code> call
      </label>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
