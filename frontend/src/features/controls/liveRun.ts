// What the controls of a run go by. The status, reason and next action shown
// are the newest known (the event stream's, unless the REST copy of the run
// has seen later events). The commands offered are only those the server
// computed as capabilities: those its last run.status carried, when the
// stream is the newer, else the REST copy's; a disabled control explains
// itself by the server's reason for it, or by the status those
// capabilities belong to.

import type { Capability, CommandType, Next, Refusals, Run, RunStatus } from "../../api/types";
import type { RunTranscript } from "../../store/reducer";
import { terminalStatuses } from "../../store/status";

export type LiveRun = {
  status: RunStatus;
  reason?: string;
  next?: Next;
  // The server's: empty until the run is fetched or a run.status says.
  capabilities: readonly Capability[];
  refusals?: Refusals;
  capsStatus: RunStatus;
  capsInterrupted: boolean;
};

// none is the capabilities of a run not fetched yet: one list, so that a
// LiveRun of the same run compares equal field by field (useLiveRun).
const none: readonly Capability[] = [];

export function liveRun(run: Run | undefined, t: RunTranscript | undefined): LiveRun {
  const streamNewer = !!t?.status && t.lastSeq >= (run?.last_seq ?? 0);
  const caps =
    streamNewer && t?.capabilities && t.status
      ? { capabilities: t.capabilities, refusals: t.refusals, capsStatus: t.status, capsInterrupted: !!t.next?.interrupted }
      : {
          capabilities: run?.capabilities ?? none,
          refusals: run?.refusals,
          capsStatus: run?.status ?? t?.status ?? "queued",
          capsInterrupted: !!run?.next?.interrupted,
        };
  if (streamNewer && t?.status) return { status: t.status, reason: t.reason, next: t.next, ...caps };
  return { status: run?.status ?? t?.status ?? "queued", reason: run?.reason, next: run?.next, ...caps };
}

export function can(live: LiveRun, cmd: Capability): boolean {
  return live.capabilities.includes(cmd);
}

// interrupted says whether a paused run waits for retry or skip of a tool
// call whose outcome is unknown.
export function interrupted(live: LiveRun): boolean {
  return live.status === "paused" && !!live.next?.interrupted;
}

// whyNot explains, for a button's tooltip, why cmd is not legal now: the
// server's reason, which the command would be rejected with, or (for a run
// known without reasons: a recording) one from the status.
export function whyNot(cmd: CommandType, live: LiveRun): string {
  const refusal = live.refusals?.[cmd];
  if (refusal?.message) return refusal.message;
  const st = live.capsStatus;
  if (terminalStatuses.has(st)) return `The run is ${st}`;
  switch (cmd) {
    case "pause":
      if (st === "pausing") return "A pause was asked: the run stops at its next safe point";
      if (st === "paused") return "The run is already paused";
      return `Pause needs a running run; this one is ${st}`;
    case "continue":
    case "step":
      if (st === "paused" && live.capsInterrupted) return "The next tool call was interrupted: retry it or skip it first";
      return `${cmd === "step" ? "Step" : "Continue"} needs a paused run; this one is ${st}`;
    case "steer":
      return `Steer needs a running or paused run; this one is ${st}`;
    case "retry":
    case "skip":
      return "Only an interrupted tool call of a paused run can be retried or skipped";
    default:
      return `Not possible while the run is ${st}`;
  }
}

// hint says what an enabled control does, with its keyboard shortcut.
export const hint: Partial<Record<CommandType, string>> = {
  pause: "Stop at the next safe point, before a model or tool call (p)",
  continue: "Run on until the next pause (p)",
  step: "Run the next model or tool call, then pause again (s)",
  cancel: "Stop the run for good (c asks first)",
  steer: "Add a message the model reads at its next call",
  retry: "Run the interrupted call again",
  skip: "Do not run the interrupted call again: the model is told its outcome is unknown",
  follow_up: "Continue the run with this message, as a new turn; budgets count every turn",
};

// title is a control's tooltip: what it does, or why it cannot now.
export function title(cmd: CommandType, live: LiveRun): string {
  return can(live, cmd) ? (hint[cmd] ?? "") : whyNot(cmd, live);
}
