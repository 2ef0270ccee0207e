// The facts a recording's header shows of its run, and the Run a client
// would have fetched: folded from the events (what a run row sums up
// live), with the bundle manifest's summary where the events say nothing.

import type { Event, NodeFinishedData, NodeStartedData, Run, RunCreatedData, RunStatus, RunStatusData } from "../api/types";
import type { Manifest } from "./recording";

export type RunFacts = {
  runId: string;
  agentName: string;
  provider: string;
  model: string;
  demo: boolean;
  instructions: string;
  workspace: string;
  mode: string;
  unattended: boolean;
  status: RunStatus;
  reason?: string;
  startedAt: number;
  endedAt: number;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  forkedFrom?: string;
  replayOf?: string; // a replay: the run it replays
};

// runFacts folds the events given (all of them, or those up to a point).
export function runFacts(events: readonly Event[], manifest?: Manifest | null): RunFacts {
  const m = manifest?.run ?? {};
  const f: RunFacts = {
    runId: events[0]?.run_id ?? m.id ?? "",
    agentName: m.agent_name ?? "",
    provider: m.provider ?? "",
    model: m.model ?? "",
    demo: false,
    instructions: m.instructions ?? "",
    workspace: m.workspace ?? "",
    mode: "",
    unattended: false,
    status: "queued",
    startedAt: events[0]?.ts ?? m.created_at ?? 0,
    endedAt: events[events.length - 1]?.ts ?? m.updated_at ?? 0,
    steps: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    forkedFrom: m.forked_from || undefined,
  };
  for (const e of events) {
    const data = (e.data ?? {}) as object;
    switch (e.type) {
      case "run.created": {
        const c = data as RunCreatedData;
        f.agentName = c.agent?.name || f.agentName;
        f.provider = c.agent?.provider || f.provider;
        f.model = c.agent?.model || f.model;
        f.demo = !!c.agent?.demo;
        f.instructions = c.instructions ?? f.instructions;
        f.workspace = c.workspace || f.workspace;
        f.mode = c.mode ?? "";
        f.unattended = !!c.unattended;
        f.forkedFrom = c.forked_from?.run_id ?? f.forkedFrom;
        f.replayOf = c.replay_of || f.replayOf;
        break;
      }
      case "run.status": {
        const c = data as RunStatusData;
        // run.status's status is a plain string in Go (event.RunStatusData) until it names run.Status.
        f.status = c.status as RunStatus;
        f.reason = c.reason;
        break;
      }
      case "node.started":
        if ((data as NodeStartedData).kind === "llm") f.steps++;
        break;
      case "node.finished": {
        const c = data as NodeFinishedData & { cost_usd?: number };
        f.inputTokens += c.usage?.input_tokens ?? 0;
        f.outputTokens += c.usage?.output_tokens ?? 0;
        f.costUsd += c.cost_usd ?? 0;
        break;
      }
    }
  }
  return f;
}

// runOf is the Run the REST API would have answered with these facts. A
// recording takes no command: its capabilities are none.
export function runOf(f: RunFacts, lastSeq: number): Run {
  return {
    id: f.runId,
    agent_id: "",
    agent_name: f.agentName,
    status: f.status,
    reason: f.reason,
    instructions: f.instructions,
    workspace: f.workspace,
    mode: f.mode as Run["mode"], // as the recording says
    provider: f.provider,
    model: f.model,
    demo: f.demo,
    unattended: f.unattended,
    created_at: f.startedAt,
    updated_at: f.endedAt,
    last_seq: lastSeq,
    steps: f.steps,
    pending_approvals: 0,
    usage: { input_tokens: f.inputTokens, output_tokens: f.outputTokens, cached_tokens: 0, cost_usd: f.costUsd },
    capabilities: [],
    forked_from: f.forkedFrom,
    replay_of: f.replayOf,
  };
}
