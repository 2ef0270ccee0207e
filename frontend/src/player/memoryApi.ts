// The API client the views use (src/api/client.ts), answered from a
// recording held in the page instead of a server: no request leaves the
// page. Reads answer as of the player's position (the events applied so
// far), so a node's details and the Files tab show the run as it was
// there; every write is refused, as a recording is read-only.

import { ApiError, type Api } from "../api/client";
import type { Event, GraphNode, NodeDetail, NodeFinishedData } from "../api/types";
import type { RunTranscript, TranscriptNode } from "../store/reducer";
import { runFacts, runOf } from "./facts";
import { filesView, type DiffCache } from "./filesView";
import { nodeInput } from "./nodeInput";
import { decodeBase64, type Recording } from "./recording";

export type MemoryApiOptions = {
  // How many events are applied: the player's position.
  at: () => number;
  // The run's state there (the store's), for node details.
  transcript: () => RunTranscript | undefined;
};

// The message of every refused write.
export const readOnlyMessage = "This is a recording: it can be replayed, not changed.";

function readOnly(): Promise<never> {
  return Promise.reject(new ApiError("forbidden", readOnlyMessage, 403));
}

function notFound(what: string): ApiError {
  return new ApiError("not_found", `${what} is not in this recording`, 404);
}

// ArtifactStore turns the embedded artifacts into URLs the page can show:
// blob: URLs made once each (data: URLs where the environment has no
// object URLs), and a picture saying so for one left out of the page.
export class ArtifactStore {
  private readonly urls = new Map<string, string>();
  constructor(private readonly rec: Recording) {}

  has(name: string): boolean {
    return name in this.rec.artifacts;
  }

  url(name: string): string {
    let u = this.urls.get(name);
    if (u) return u;
    const a = this.rec.artifacts[name];
    if (!a) u = missingPicture(name);
    else if (typeof URL.createObjectURL === "function") u = URL.createObjectURL(new Blob([decodeBase64(a.data)], { type: a.mime }));
    else u = `data:${a.mime};base64,${a.data}`;
    this.urls.set(name, u);
    return u;
  }
}

// missingPicture is an image that says the artifact is not in the page.
function missingPicture(name: string): string {
  const text = `${name}: not included in this recording`.replace(/[<>&"']/g, "");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="60"><rect width="100%" height="100%" fill="#eceff3"/><text x="12" y="35" font-family="sans-serif" font-size="14" fill="#5f6b7a">${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

export function createMemoryApi(rec: Recording, opts: MemoryApiOptions): Api {
  const runId = rec.events[0]!.run_id;
  const artifacts = new ArtifactStore(rec);
  const blobs = new Map<string, Uint8Array>();
  const diffs: DiffCache = new Map();

  const applied = (): readonly Event[] => rec.events.slice(0, Math.max(0, Math.min(opts.at(), rec.events.length)));
  const blob = (sum: string): Uint8Array | undefined => {
    let b = blobs.get(sum);
    if (!b && sum in rec.blobs) {
      b = decodeBase64(rec.blobs[sum]!);
      blobs.set(sum, b);
    }
    return b;
  };
  const checkRun = (id: string) => {
    if (id !== runId) throw notFound(`Run ${id}`);
  };
  const run = () => {
    const evs = applied();
    return runOf(runFacts(evs, rec.manifest), evs[evs.length - 1]?.seq ?? 0);
  };
  // answer runs a read, turning a thrown ApiError into a rejection.
  const answer = <T>(f: () => T): Promise<T> => {
    try {
      return Promise.resolve(f());
    } catch (err) {
      return Promise.reject(err);
    }
  };

  return {
    info: () =>
      Promise.resolve({
        version: rec.manifest?.steward ?? "",
        default_workspace: "",
        provider: "",
        demo: false,
        note: "a recording",
        // The server always says; a recording has no machine to run commands on.
        sandbox: { available: false, reason: "a recording runs no commands" },
      }),
    agents: () => Promise.resolve([]),
    runs: () => answer(() => [run()]),
    // A recording holds one run: one page, with nothing after it.
    runsPage: () => answer(() => ({ runs: [run()], next_before: "", more: false })),
    run: (id) =>
      answer(() => {
        checkRun(id);
        return run();
      }),
    startRun: readOnly,
    replayRun: readOnly,
    importRecording: readOnly,
    saveExport: readOnly,
    recordingSoFar: readOnly,
    events: (id, after = 0, limit) =>
      answer(() => {
        checkRun(id);
        const rest = applied().filter((e) => e.seq > after);
        const page = limit ? rest.slice(0, limit) : rest;
        return { events: page, next_after: page[page.length - 1]?.seq ?? after, more: page.length < rest.length };
      }),
    node: (id, nodeId) =>
      answer(() => {
        checkRun(id);
        return nodeDetail(applied(), opts.transcript(), nodeId);
      }),
    command: readOnly,
    interactions: () => Promise.resolve([]),
    answer: readOnly,
    answerMany: readOnly,
    listGrants: () => Promise.resolve([]),
    revokeGrant: readOnly,
    dirs: readOnly,
    pickFolder: readOnly,
    runFiles: (id) =>
      answer(() => {
        checkRun(id);
        return filesView(applied(), blob, diffs);
      }),
    undoFiles: readOnly,
    revertFiles: readOnly,
    rewindFiles: readOnly,
    agent: (id) => Promise.reject(notFound(`Agent ${id}`)),
    createAgent: readOnly,
    updateAgent: readOnly,
    deleteAgent: readOnly,
    tools: () => Promise.resolve([]),
    settings: readOnly,
    // A recording has no account of usage, and its budgets are the
    // recording machine's: neither is shown.
    usage: readOnly,
    budget: readOnly,
    updateProvider: readOnly,
    testProvider: readOnly,
    updatePrices: readOnly,
    mcpServers: () => Promise.resolve([]),
    testMCPServer: readOnly,
    putMCPServer: readOnly,
    removeMCPServer: readOnly,
    setMCPState: readOnly,
    projectServers: readOnly,
    approveProject: readOnly,
    revokeProject: readOnly,
    // A recording has no live browser: the views show its screenshots.
    browserFrame: () => Promise.resolve(undefined),
    artifactUrl: (_runId, name) => artifacts.url(name),
    browserFrameUrl: () => missingPicture("the live browser"),
  };
}

// nodeDetail is GET /runs/{id}/nodes/{node} from the events applied: the
// node as the graph shows it, its own events and, for a model call, its input.
export function nodeDetail(events: readonly Event[], t: RunTranscript | undefined, nodeId: string): NodeDetail {
  const n = t?.nodes[nodeId];
  if (!n) throw notFound(`Node ${nodeId}`);
  const own = events.filter((e) => e.node_id === nodeId);
  const finished = own.find((e) => e.type === "node.finished")?.data as NodeFinishedData | undefined;
  return {
    node: graphNode(n, finished?.cost_usd),
    events: own,
    input: n.kind === "llm" ? nodeInput(events, nodeId) : undefined,
  };
}

function graphNode(n: TranscriptNode, costUsd: number | undefined): GraphNode {
  return {
    id: n.id,
    kind: n.kind,
    status: n.status,
    label: n.label,
    parent: n.parent,
    after: n.after ?? [],
    started_at: n.startedAt,
    finished_at: n.finishedAt,
    tool: n.kind === "tool" ? n.tool : undefined,
    duration_ms: n.durationMs ?? 0,
    error: n.error,
    attempts: n.kind === "llm" ? (n.attempts?.length ?? 0) + 1 : undefined,
    // As recorded, where the server's graph would say 0: node.finished
    // leaves out a zero cached count, and a model with no price has no cost.
    usage:
      n.kind === "llm" && n.usage && n.finishedAt !== undefined
        ? ({ ...n.usage, cost_usd: costUsd } as GraphNode["usage"])
        : undefined,
  };
}
