import "./transcript.css";
import { useDeferredValue } from "react";
import { useShallow } from "zustand/react/shallow";
import { PaneContext, useMaximisedPane } from "../../ui/PaneHeader";
import { useApp } from "../../store/context";
import { terminalStatuses } from "../../store/status";
import { selectRun } from "../../store/store";
import { DemoLabel, StatusBadge } from "../../ui/StatusBadge";
import { Lineage } from "../controls/Fork";
import { useLiveRun } from "../controls/useLiveRun";
import { PausedBanner } from "../controls/PausedBanner";
import { RunControls } from "../controls/RunControls";
import { SteerBox } from "../controls/SteerBox";
import { FollowUpBox } from "../controls/FollowUpBox";
import { useCommand } from "../controls/useCommand";
import { DecisionsFold } from "../audit/DecisionsFold";
import { BrowserPanel } from "../browser/BrowserPanel";
import { ExportMenu } from "../exchange/ExportMenu";
import { ReplayButton } from "../exchange/ReplayDialog";
import { DivergenceBanner, ReplayOf } from "../exchange/ReplayNotice";
import { FilesView } from "../files/FilesView";
import { GraphPanel } from "../graph/GraphPanel";
import { PlanPanel } from "../plan/PlanPanel";
import { TimelinePanel } from "../timeline/TimelinePanel";
import { RunBudgets } from "../usage/RunBudgets";
import { RunPanes } from "./RunPanes";
import { SandboxBadge, SandboxBanner } from "./SandboxNotice";
import { ProjectBanner } from "./ProjectNotice";
import { Transcript } from "./Transcript";
import { tokens } from "../usage/money";

// RunView is the selected run: its header (status, controls, the paused
// banner, the steer box, or the follow-up box once it ended), its plan, its browser (once it used one), its
// live transcript and execution graph side by side (or the files it
// changed), and the audit of its tool call decisions. Either pane can be
// maximised: the header's controls and the inbox stay; Escape restores.
export function RunView() {
  // Deferred: the view of a run just selected is mounted in a render React
  // can split (its header, transcript and panes, their code run for the
  // first time), not in the task of the selection.
  const runId = useDeferredValue(useApp((s) => s.selectedRunId));
  const filesCount = useApp((s) => (runId ? (s.stream.runs[runId]?.files.paths.length ?? 0) : 0));
  const panes = useMaximisedPane();
  const maximised = panes.maximised;

  if (!runId) {
    return (
      <div className="run-view empty-state">
        <p>Select a run on the left, or start a new one with the form above it.</p>
      </div>
    );
  }
  return (
    <PaneContext.Provider value={panes}>
      <div className={`run-view${maximised ? " run-view-maximised" : ""}`}>
        {/* Keyed by run: a command's error or a steer draft stays with its run. */}
        <RunHeader key={runId} runId={runId} compact={!!maximised} />
        {!maximised && <PlanPanel runId={runId} />}
        {/* Unmounted while a pane is maximised: it stops asking for frames. */}
        {!maximised && <BrowserPanel key={`browser:${runId}`} runId={runId} />}
        <RunPanes
          transcript={<Transcript key={`transcript:${runId}`} runId={runId} />}
          graph={<GraphPanel key={`graph:${runId}`} runId={runId} />}
          timeline={<TimelinePanel key={`timeline:${runId}`} runId={runId} />}
          files={<FilesView key={runId} runId={runId} />}
          filesCount={filesCount}
        />
        <DecisionsFold runId={runId} hidden={!!maximised} />
      </div>
    </PaneContext.Provider>
  );
}

// RunHeader is the run's status and controls; compact (a pane maximised)
// leaves out its facts and lineage, never its controls.
function RunHeader({ runId, compact }: { runId: string; compact: boolean }) {
  const run = useApp((s) => selectRun(s, runId));
  // What the header shows of the event stream, field by field: the whole
  // transcript changes with every streamed delta.
  const t = useApp(
    useShallow((s) => {
      const r = s.stream.runs[runId];
      return { demo: r?.demo, agentName: r?.agent?.name, mode: r?.mode, unattended: r?.unattended, workspace: r?.workspace };
    }),
  );
  const { send, busy, error } = useCommand(runId);

  const live = useLiveRun(runId);
  const demo = run?.demo ?? t.demo ?? false;
  // A recording imported here is history: no controls but fork and export.
  const imported = run?.imported_from;

  return (
    <header className={`run-header run-header-${live.status}`}>
      <div className="run-header-main">
        <StatusBadge status={live.status} data-testid="run-status" className="large" />
        <h1>{run?.agent_name ?? t.agentName ?? "Run"}</h1>
        {demo && <DemoLabel />}
        <ModeBadge mode={run?.mode || t.mode} unattended={run?.unattended ?? t.unattended} />
        {!imported && <SandboxBadge runId={runId} />}
        <code className="run-id">{runId}</code>
        {imported && (
          <span
            className="imported-badge"
            data-testid="imported-badge"
            title={`Imported from a recording of run ${imported}: someone else's content, read-only (fork it from a node to go on with one of your agents)`}
          >
            imported: someone else's content
          </span>
        )}
        <ReplayOf runId={runId} />
        <span className="spacer" />
        <ReplayButton runId={runId} />
        <ExportMenu runId={runId} />
        {!imported && <RunControls runId={runId} live={live} send={send} busy={busy} />}
      </div>
      {!compact && <Lineage runId={runId} />}
      {!compact && (
      <dl className="run-facts">
        <dt>Workspace</dt>
        <dd>
          <code>{run?.workspace ?? t.workspace ?? ""}</code>
        </dd>
        {run && (
          <>
            <dt>Model</dt>
            <dd>{demo ? "none (demo script)" : `${run.provider}/${run.model}`}</dd>
            <dt>Steps</dt>
            <dd>{run.steps}</dd>
            <dt>Tokens</dt>
            <dd>
              {demo
                ? "none (no model is called)"
                : `${tokens(run.usage.input_tokens)} in / ${tokens(run.usage.output_tokens)} out${run.usage.cost_usd ? ` · $${run.usage.cost_usd.toFixed(4)}` : ""}`}
            </dd>
            {!imported && <RunBudgets runId={runId} />}
          </>
        )}
      </dl>
      )}
      {!compact && imported && (
        <p className="foreign-notice" data-testid="imported-notice">
          This run was imported from a recording: it is someone else's content, shown as it was recorded. Nothing in it is
          used as a setting here: its workspace ({run?.workspace || "unknown"}) is another machine's folder, and its
          provider, model, mode and rules are not used. A fork or a replay runs with one of your agents, in a folder you
          choose, and starts paused.
        </p>
      )}
      {!compact && <DivergenceBanner runId={runId} />}
      {!imported && <SandboxBanner runId={runId} />}
      {!imported && <ProjectBanner runId={runId} />}
      {!imported && <PausedBanner live={live} send={send} busy={busy} />}
      {!imported &&
        (terminalStatuses.has(live.status) ? (
          <FollowUpBox runId={runId} live={live} send={send} busy={busy} />
        ) : (
          <SteerBox live={live} send={send} busy={busy} />
        ))}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </header>
  );
}

const modeHints: Record<string, string> = {
  ask: "Read tools run; every other call asks first",
  edits: "Workspace writes run; exec, network and destructive calls ask",
  plan: "Only read tools are offered to the model",
  auto: "Every call runs, still confined to the workspace",
};

// ModeBadge is the run's permission mode: what runs without asking. An
// unattended run has nobody to ask, so what would ask is denied.
function ModeBadge({ mode, unattended }: { mode?: string; unattended?: boolean }) {
  if (!mode && !unattended) return null;
  const hint = [mode ? (modeHints[mode] ?? `Permission mode ${mode}`) : "", unattended ? "Unattended: nobody is asked, so what would ask is denied" : ""]
    .filter(Boolean)
    .join(". ");
  return (
    <span className={`mode-badge mode-${mode ?? "unknown"}${unattended ? " unattended" : ""}`} data-testid="mode-badge" title={hint}>
      {mode ? `${mode} mode` : ""}
      {mode && unattended ? " · " : ""}
      {unattended ? "unattended" : ""}
    </span>
  );
}
