// REST client of the Steward API. Every request carries the session cookie
// (same origin); an error answer `{error:{code,message}}` becomes an ApiError.

import type {
  AgentDefinition,
  AgentDefinitionInput,
  Answer,
  BatchAnswer,
  Budget,
  Command,
  CommandResult,
  DirList,
  ErrorBody,
  EventPage,
  FileConflict,
  FilesView,
  Info,
  Interaction,
  NodeDetail,
  PricesUpdate,
  MCPTest,
  ProjectApproval,
  ProjectView,
  ProviderName,
  ProviderTest,
  ProviderUpdate,
  ReplayRequest,
  RestoreResult,
  Run,
  Settings,
  StartRun,
  UsageQuery,
  UsageReport,
} from "./types";
import type { components } from "./schema";

// The answers that wrap a list, and the few bodies types.ts does not name.
type Schemas = components["schemas"];

// ApiError is a failed API call. code is the server's stable code
// (invalid, unauthorized, forbidden, not_found, method_not_allowed,
// conflict, too_large, internal, unavailable), or "network" when no answer
// arrived. conflicts lists the files that stopped an undo, revert or rewind
// (code conflict); it is empty for every other error.
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly conflicts: readonly FileConflict[];

  constructor(code: string, message: string, status: number, conflicts: readonly FileConflict[] = []) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.conflicts = conflicts;
  }
}

export function isApiError(err: unknown, code?: string): err is ApiError {
  return err instanceof ApiError && (code === undefined || err.code === code);
}

export type ClientOptions = {
  // fetch to use; the global one by default (tests pass a fake).
  fetch?: typeof fetch;
  // Called when any call answers 401, before the ApiError is thrown.
  onUnauthorized?: () => void;
};

export type Api = ReturnType<typeof createApi>;

const base = "/api/v1";

// artifactUrl is where a run's artifact (a screenshot, a recording) is
// served. It is a plain GET that the session cookie authorises, so it works
// as the src of an <img> or a <video> and as a link opened in a new tab.
export function artifactUrl(runId: string, name: string): string {
  const path = name.split("/").map(encodeURIComponent).join("/");
  return `${base}/runs/${encodeURIComponent(runId)}/artifacts/${path}`;
}

// ExportFormat is what a run can be exported as: the recording (.steward),
// a web page that replays it offline, OpenTelemetry traces, or the browser
// video.
export type ExportFormat = Schemas["ExportSaveInput"]["format"];

// exportUrl downloads a run's export (a plain GET the session cookie
// authorises; the answer is an attachment).
export function exportUrl(runId: string, format: ExportFormat): string {
  return `${base}/runs/${encodeURIComponent(runId)}/export?format=${format}`;
}

// browserFrameUrl is the latest screencast frame (a JPEG) of the run's live
// browser; 404 while the run has no browser open or no frame yet.
export function browserFrameUrl(runId: string): string {
  return `${base}/runs/${encodeURIComponent(runId)}/browser/frame`;
}

// BrowserFrame is one screencast frame: the image and when the browser
// painted it (Unix ms, from X-Frame-Time; undefined when not sent).
export type BrowserFrame = { image: Blob; time?: number };

// RunListParams narrow GET /runs; before is the next_before of the page
// before (an opaque cursor).
export type RunListParams = { status?: string; agent?: string; q?: string; attention?: "true"; before?: string; limit?: number };

export function createApi(opts: ClientOptions = {}) {
  async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const doFetch = opts.fetch ?? globalThis.fetch;
    let res: Response;
    try {
      res = await doFetch(base + path, {
        method,
        credentials: "same-origin",
        headers: body === undefined ? { Accept: "application/json" } : { Accept: "application/json", "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ApiError("network", `cannot reach the Steward server: ${String(err)}`, 0);
    }
    if (res.status === 401) opts.onUnauthorized?.();
    if (!res.ok) throw await toError(res);
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  const q = encodeURIComponent;

  // browserFrame fetches the latest frame of a run's live browser, or
  // undefined when there is none (404): not an error, the usual answer
  // before the agent's first browser call and after the browser closed.
  async function browserFrame(runId: string): Promise<BrowserFrame | undefined> {
    const doFetch = opts.fetch ?? globalThis.fetch;
    let res: Response;
    try {
      res = await doFetch(browserFrameUrl(runId), { credentials: "same-origin", headers: { Accept: "image/*" } });
    } catch (err) {
      throw new ApiError("network", `cannot reach the Steward server: ${String(err)}`, 0);
    }
    if (res.status === 404) return undefined;
    if (res.status === 401) opts.onUnauthorized?.();
    if (!res.ok) throw await toError(res);
    const time = Number(res.headers.get("X-Frame-Time") ?? "");
    return { image: await res.blob(), time: Number.isFinite(time) && time > 0 ? time : undefined };
  }

  // importRecording sends a .steward file as the request body; the answer
  // is the new, read-only run. A damaged file is an ApiError (invalid) that
  // says what is wrong, and nothing was imported.
  async function importRecording(file: Blob): Promise<Run> {
    const doFetch = opts.fetch ?? globalThis.fetch;
    let res: Response;
    try {
      res = await doFetch(base + "/recordings", {
        method: "POST",
        credentials: "same-origin",
        headers: { Accept: "application/json", "Content-Type": "application/octet-stream" },
        body: file,
      });
    } catch (err) {
      throw new ApiError("network", `cannot reach the Steward server: ${String(err)}`, 0);
    }
    if (res.status === 401) opts.onUnauthorized?.();
    if (!res.ok) throw await toError(res);
    return (await res.json()) as Run;
  }

  return {
    info: () => request<Info>("GET", "/info"),
    importRecording,
    // recordingSoFar makes a video of a live run's browser recording as it
    // is now (the run's own video is made when it ends).
    recordingSoFar: (runId: string) => request<Schemas["Artifact"]>("POST", `/runs/${q(runId)}/browser/recording`),
    // saveExport: the desktop window asks where to save, in its native dialog.
    saveExport: (runId: string, format: ExportFormat) =>
      request<Schemas["ExportSaved"]>("POST", `/runs/${q(runId)}/export/save`, { format }),
    agents: async () => (await request<Schemas["AgentsBody"]>("GET", "/agents")).agents,
    runs: async (params: RunListParams = {}) => (await request<Schemas["RunsBody"]>("GET", "/runs" + query(params))).runs,
    // runsPage is one page of the run list; while more, next_before is the
    // before of the next.
    runsPage: (params: RunListParams = {}) => request<Schemas["RunsBody"]>("GET", "/runs" + query(params)),
    run: (id: string) => request<Run>("GET", `/runs/${q(id)}`),
    startRun: (body: StartRun) => request<Run>("POST", "/runs", body),
    // replayRun starts a new run that replays an ended one (201: the new
    // run, its replay_of the id). 400 invalid (a fork, no agent definition,
    // a bad option), 404 not_found, 409 conflict (the run is still active).
    replayRun: (id: string, body: ReplayRequest) => request<Run>("POST", `/runs/${q(id)}/replay`, body),
    events: (id: string, after = 0, limit?: number) =>
      request<EventPage>("GET", `/runs/${q(id)}/events` + query({ after, limit })),
    // node is one node of a run's graph with its events and, for a model call, its input.
    node: (runId: string, nodeId: string) => request<NodeDetail>("GET", `/runs/${q(runId)}/nodes/${q(nodeId)}`),
    command: (runId: string, cmd: Command) =>
      request<CommandResult>("POST", `/runs/${q(runId)}/commands`, cmd),
    interactions: async (params: { status?: string; run_id?: string } = {}) =>
      (await request<Schemas["InteractionsBody"]>("GET", "/interactions" + query(params))).interactions,
    answer: (id: string, answer: Answer) =>
      request<Interaction>("POST", `/interactions/${q(id)}/answer`, answer),
    // answerMany decides several interactions together (the parallel calls
    // of a turn). Each is answered on its own: a result carries the
    // interaction or its own error, in the order asked.
    answerMany: async (answers: BatchAnswer[]) =>
      (await request<Schemas["AnswersBody"]>("POST", "/interactions/answers", { answers })).results,
    // listGrants is the saved grants, newest first.
    listGrants: async () => (await request<Schemas["GrantsBody"]>("GET", "/grants")).grants,
    revokeGrant: (id: string) => request<void>("DELETE", `/grants/${q(id)}`),
    // dirs lists the subfolders of an absolute path (or ~); "" is the home folder.
    dirs: (path = "") => request<DirList>("GET", "/fs/dirs" + query({ path })),
    // The desktop window's native folder dialog (Info.desktop).
    pickFolder: (start: string) =>
      request<Schemas["FolderChoice"]>("POST", "/desktop/folder", { start }),
    // runFiles is the files a run changed (or saw changed), with diffs.
    runFiles: (runId: string) => request<FilesView>("GET", `/runs/${q(runId)}/files`),
    // undoFiles, revertFiles and rewindFiles take file changes back: one op,
    // the whole run, or a node's and everything after it. A conflict (an
    // ApiError with code conflict and its conflicts) means nothing was written.
    undoFiles: (runId: string, op: string) => request<RestoreResult>("POST", `/runs/${q(runId)}/files/undo`, { op }),
    revertFiles: (runId: string) => request<RestoreResult>("POST", `/runs/${q(runId)}/files/revert`, {}),
    rewindFiles: (runId: string, nodeId: string) =>
      request<RestoreResult>("POST", `/runs/${q(runId)}/files/rewind`, { node_id: nodeId }),
    // agent is one agent's whole definition, by id or name; createAgent,
    // updateAgent (which replaces it) and deleteAgent change them. A 400
    // invalid names the field that is wrong.
    agent: (id: string) => request<AgentDefinition>("GET", `/agents/${q(id)}`),
    createAgent: (body: AgentDefinitionInput) => request<AgentDefinition>("POST", "/agents", body),
    updateAgent: (id: string, body: AgentDefinitionInput) => request<AgentDefinition>("PUT", `/agents/${q(id)}`, body),
    deleteAgent: (id: string) => request<void>("DELETE", `/agents/${q(id)}`),
    // tools is the tool catalog with each tool's risk.
    tools: async () => (await request<Schemas["ToolsBody"]>("GET", "/tools")).tools,
    // usage is the tokens and cost of the runs of a period, by group; a 400
    // names a bad group or day. budget is one run's budgets and spending.
    usage: (query: UsageQuery) => {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
      const qs = params.toString();
      return request<UsageReport>("GET", `/usage${qs ? `?${qs}` : ""}`);
    },
    budget: (runId: string) => request<Budget>("GET", `/runs/${q(runId)}/budget`),
    // settings is the providers, the local model servers found and the
    // price table; each change answers the whole settings again.
    settings: () => request<Settings>("GET", "/settings"),
    updateProvider: (name: ProviderName, body: ProviderUpdate) =>
      request<Settings>("PUT", `/settings/providers/${q(name)}`, body),
    // testProvider lists the provider's models with its saved settings.
    testProvider: (name: ProviderName) => request<ProviderTest>("POST", `/settings/providers/${q(name)}/test`),
    updatePrices: (body: PricesUpdate) => request<Settings>("PUT", "/settings/prices", body),
    // mcpServers lists config.json's MCP servers; testMCPServer connects to
    // one as a run would and lists its tools.
    mcpServers: async () => (await request<Schemas["McpServersBody"]>("GET", "/mcp/servers")).servers,
    testMCPServer: (name: string) => request<MCPTest>("POST", `/mcp/servers/${q(name)}/test`),
    // putMCPServer adds or replaces a server with its entry as pasted;
    // removeMCPServer and setMCPState change config.json too. Each answers
    // the servers after the change; a 400 invalid names the field.
    putMCPServer: async (name: string, entry: unknown) =>
      (await request<Schemas["McpServersBody"]>("PUT", `/mcp/servers/${q(name)}`, entry)).servers,
    // projectServers reviews a workspace's .mcp.json; approveProject
    // approves it as shown (its sha256: 409 when it changed since).
    projectServers: (workspace: string) => request<ProjectView>("GET", `/mcp/project?workspace=${q(workspace)}`),
    approveProject: (a: ProjectApproval) => request<ProjectView>("POST", "/mcp/project/approve", a),
    revokeProject: (workspace: string) => request<ProjectView>("POST", "/mcp/project/revoke", { workspace }),
    removeMCPServer: async (name: string) => (await request<Schemas["McpServersBody"]>("DELETE", `/mcp/servers/${q(name)}`)).servers,
    setMCPState: async (name: string, state: Schemas["MCPState"]) =>
      (await request<Schemas["McpServersBody"]>("PUT", `/mcp/servers/${q(name)}/state`, state)).servers,
    browserFrame,
    // artifactUrl and browserFrameUrl are here as well as module functions
    // so that views take them from the Services api: a recording's player
    // answers with data held in the page instead of the server's URLs.
    artifactUrl: (runId: string, name: string): string => artifactUrl(runId, name),
    browserFrameUrl: (runId: string): string => browserFrameUrl(runId),
  };
}

function query(params: Record<string, string | number | undefined>): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== "") sp.set(k, String(v));
  }
  const s = sp.toString();
  return s ? "?" + s : "";
}

async function toError(res: Response): Promise<ApiError> {
  let code = statusCodes[res.status] ?? "internal";
  let message = `${res.status} ${res.statusText}`.trim();
  let conflicts: FileConflict[] = [];
  try {
    const body = (await res.json()) as Partial<ErrorBody>;
    if (body.error?.code) code = body.error.code;
    if (body.error?.message) message = body.error.message;
    if (Array.isArray(body.error?.conflicts)) conflicts = body.error.conflicts;
  } catch {
    // Not a JSON error body (a proxy's page, say): keep the HTTP status.
  }
  return new ApiError(code, message, res.status, conflicts);
}

// The code an error answer has when its body says none.
const statusCodes: Record<number, string> = {
  400: "invalid",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "too_large",
  422: "unsupported",
  500: "internal",
  503: "unavailable",
};

// newId returns a random UUID for command ids. crypto.randomUUID needs a
// secure context, which loopback is; the fallback covers the odd browser.
export function newId(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
