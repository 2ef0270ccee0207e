package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"steward/backend/agent"
	"steward/backend/config"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tool"
	"steward/backend/tools/mcp"
)

type route struct {
	method, path, summary string
	auth                  bool
	handler               http.Handler
	// request and response are example values of the body types, for the
	// OpenAPI document; nil means none.
	request, response any
	status            int // success status, 200 when zero
	// body is the media type of a request body that is not JSON (a file).
	body string
	// query are the route's query parameters: read through them, and
	// nothing else is taken (see checkQuery).
	query []queryParam
	// errors are the error statuses the route answers besides those of
	// every route (see errorStatuses).
	errors []int
}

type (
	agentsBody struct {
		Agents []Agent `json:"agents"`
	}
	// runsBody is a page of the run list. More says whether runs follow
	// it; NextBefore is then the before of the next page (empty when not).
	runsBody struct {
		Runs       []Run  `json:"runs"`
		NextBefore string `json:"next_before"`
		More       bool   `json:"more"`
	}
	eventsBody struct {
		Events    []Event `json:"events"`
		NextAfter int64   `json:"next_after"`
		More      bool    `json:"more"`
	}
	interactionsBody struct {
		Interactions []Interaction `json:"interactions"`
	}
	toolsBody struct {
		Tools []ToolSpec `json:"tools"`
	}
	statusBody struct {
		Status string `json:"status"`
	}
)

func (s *Server) routeTable() []route {
	h := func(f func(w http.ResponseWriter, r *http.Request) error) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := f(w, r); err != nil {
				s.fail(w, r, err)
			}
		})
	}
	return []route{
		{method: "GET", path: "/healthz", summary: "Liveness", handler: h(s.healthz), response: statusBody{}},
		{method: "GET", path: "/readyz", summary: "Readiness: the store answers", handler: h(s.readyz), response: statusBody{}},
		{method: "GET", path: "/api/v1/info", summary: "Server version and model provider", auth: true, handler: h(s.info), response: Info{}},
		{method: "GET", path: "/api/v1/agents", summary: "List agents", auth: true, handler: h(s.listAgents), response: agentsBody{}},
		{method: "POST", path: "/api/v1/agents", summary: "Create an agent", auth: true, handler: h(s.createAgent), request: AgentInput{}, response: Agent{}, status: 201, errors: []int{http.StatusConflict}},
		{method: "GET", path: "/api/v1/agents/{id}", summary: "Read an agent (by id or name)", auth: true, handler: h(s.getAgent), response: Agent{}},
		{method: "PUT", path: "/api/v1/agents/{id}", summary: "Replace an agent", auth: true, handler: h(s.updateAgent), request: AgentInput{}, response: Agent{}, errors: []int{http.StatusConflict}},
		{method: "DELETE", path: "/api/v1/agents/{id}", summary: "Delete an agent", auth: true, handler: h(s.deleteAgent), status: 204},
		{method: "GET", path: "/api/v1/runs", summary: "List runs, newest first", auth: true, handler: h(s.listRuns), response: runsBody{}, query: []queryParam{qRunStatus, qRunAgent, qRunText, qRunAttention, qRunBefore, qRunLimit}},
		{method: "POST", path: "/api/v1/runs", summary: "Start a run", auth: true, handler: h(s.startRun), request: StartRun{}, response: Run{}, status: 201},
		{method: "GET", path: "/api/v1/runs/{id}", summary: "Read a run", auth: true, handler: h(s.getRun), response: Run{}},
		{method: "GET", path: "/api/v1/runs/{id}/events", summary: "Read a run's log in pages", auth: true, handler: h(s.events), response: eventsBody{}, query: []queryParam{qEventsAfter, qEventsLimit}},
		{method: "GET", path: "/api/v1/runs/{id}/budget", summary: "The run's budgets and what it spent against them (steps, tokens, cost, time in calls), as the engine counts them", auth: true, handler: h(s.budget), response: run.Budget{}},
		{method: "GET", path: "/api/v1/runs/{id}/graph", summary: "The run's execution graph", auth: true, handler: h(s.graph), response: Graph{}},
		{method: "GET", path: "/api/v1/runs/{id}/nodes/{node}", summary: "One node of the graph with its events and, for a model call, its input", auth: true, handler: h(s.node), response: NodeDetail{}},
		{method: "GET", path: "/api/v1/runs/{id}/files", summary: "The files the run changed (or saw changed), with diffs for the run and for each change", auth: true, handler: h(s.files), response: FilesView{}},
		{method: "POST", path: "/api/v1/runs/{id}/files/undo", summary: "Take back the file changes of one op (a tool node, or an earlier undo); 409 lists conflicts and nothing is written", auth: true, handler: h(s.restore(run.RestoreUndo)), request: RestoreInput{}, response: run.RestoreResult{}, errors: []int{http.StatusConflict, http.StatusNotImplemented}},
		{method: "POST", path: "/api/v1/runs/{id}/files/revert", summary: "Take back every file change of the run; 409 lists conflicts and nothing is written", auth: true, handler: h(s.restore(run.RestoreRevert)), response: run.RestoreResult{}, errors: []int{http.StatusConflict, http.StatusNotImplemented}},
		{method: "POST", path: "/api/v1/runs/{id}/files/rewind", summary: "Take back the file changes of a node and of everything after it; 409 lists conflicts and nothing is written", auth: true, handler: h(s.restore(run.RestoreRewind)), request: RestoreInput{}, response: run.RestoreResult{}, errors: []int{http.StatusConflict, http.StatusNotImplemented}},
		{method: "GET", path: "/api/v1/runs/{id}/export", summary: "Export the run (format: steward, html, otlp, video) as a download; redacted", auth: true, handler: h(s.exportRun), query: []queryParam{qExportFormat}, errors: []int{http.StatusNotImplemented}},
		{method: "POST", path: "/api/v1/runs/{id}/export/save", summary: "Desktop window: save an export where the person chooses in the native dialog", auth: true, handler: h(s.saveExport), request: ExportSaveInput{}, response: ExportSaved{}, errors: []int{http.StatusConflict, http.StatusNotImplemented}},
		{method: "POST", path: "/api/v1/runs/{id}/replay", summary: "Replay a run that has ended as a new run linked to it: the model's answers (and, with tools recorded, the tools' results) come from its log; the first difference is recorded as replay.diverged", auth: true, handler: h(s.replayRun), request: ReplayInput{}, response: Run{}, status: 201, errors: []int{http.StatusConflict, http.StatusNotImplemented}},
		{method: "POST", path: "/api/v1/recordings", summary: "Import a recording (.steward, the request body) as a new read-only run", auth: true, handler: h(s.importRun), response: Run{}, status: 201, body: "application/octet-stream", errors: []int{http.StatusNotImplemented}},
		{method: "GET", path: "/api/v1/runs/{id}/artifacts/{name...}", summary: "A picture or video the run produced (screenshot, browser recording), as announced by artifact.created", auth: true, handler: h(s.artifact)},
		{method: "GET", path: "/api/v1/runs/{id}/browser/frame", summary: "The latest picture (JPEG) of the run's live browser; header X-Frame-Time is when it was painted (unix ms)", auth: true, handler: h(s.browserFrame)},
		{method: "POST", path: "/api/v1/runs/{id}/browser/recording", summary: "Make a video of the live run's browser recording so far (browser-so-far.mp4); the run's own video is made when it ends", auth: true, handler: h(s.recordingSoFar), response: tool.Artifact{}, errors: []int{http.StatusConflict}},
		{method: "POST", path: "/api/v1/runs/{id}/commands", summary: "Send a control command", auth: true, handler: h(s.command), request: Command{}, response: CommandResult{}},
		{method: "POST", path: "/api/v1/runs/{id}/follow-up", summary: "Continue a run that ended with a message: a new turn of the same run (the follow_up command); 409 says why a run cannot take one", auth: true, handler: h(s.followUp), request: FollowUp{}, response: Run{}, status: 202, errors: []int{http.StatusConflict}},
		{method: "GET", path: "/api/v1/usage", summary: "Tokens and cost of the runs of a period, added up by run, agent, model or UTC day (imported runs left out)", auth: true, handler: h(s.usage), response: UsageReport{}, query: []queryParam{qUsageGroup, qUsageFrom, qUsageTo}},
		{method: "GET", path: "/api/v1/interactions", summary: "The inbox across runs", auth: true, handler: h(s.listInteractions), response: interactionsBody{}, query: []queryParam{qInteractionStatus, qInteractionRun}},
		{method: "POST", path: "/api/v1/interactions/{id}/answer", summary: "Answer an approval or a question; the first answer wins", auth: true, handler: h(s.answer), request: Answer{}, response: Interaction{}, errors: []int{http.StatusConflict}},
		{method: "POST", path: "/api/v1/interactions/answers", summary: "Answer several interactions together (a turn's parallel calls); each succeeds or fails on its own", auth: true, handler: h(s.answerMany), request: Answers{}, response: answersBody{}},
		{method: "GET", path: "/api/v1/grants", summary: "Saved grants (approve always, deny always), newest first", auth: true, handler: h(s.listGrants), response: grantsBody{}},
		{method: "DELETE", path: "/api/v1/grants/{id}", summary: "Revoke a grant", auth: true, handler: h(s.deleteGrant), status: 204},
		{method: "GET", path: "/api/v1/fs/dirs", summary: "The subfolders of a folder on this machine, for choosing a workspace (path: absolute or ~; empty for home)", auth: true, handler: h(s.listDirs), response: DirList{}, query: []queryParam{qDirsPath}, errors: []int{http.StatusNotFound}},
		{method: "GET", path: "/api/v1/settings", summary: "Providers (never their keys), local model servers, and the price table", auth: true, handler: h(s.settings), response: config.SettingsView{}, errors: []int{http.StatusNotImplemented}},
		{method: "PUT", path: "/api/v1/settings/providers/{name}", summary: "Change a provider's base URL, model or stored key (applies to runs started after)", auth: true, handler: h(s.setProvider), request: config.ProviderInput{}, response: config.SettingsView{}, errors: []int{http.StatusNotImplemented}},
		{method: "POST", path: "/api/v1/settings/providers/{name}/test", summary: "Test a provider: list its models with the settings in force", auth: true, handler: h(s.testProvider), response: config.TestResult{}, errors: []int{http.StatusNotImplemented}},
		{method: "PUT", path: "/api/v1/settings/prices", summary: "Replace the configured prices (the defaults stay underneath)", auth: true, handler: h(s.setPrices), request: PricesInput{}, response: config.SettingsView{}, errors: []int{http.StatusNotImplemented}},
		{method: "GET", path: "/api/v1/mcp/servers", summary: "The MCP servers of config.json: what each runs or reaches (never its secrets), its trust and protocol, and the sessions open now", auth: true, handler: h(s.listMCPServers), response: mcpServersBody{}, errors: []int{http.StatusNotImplemented}},
		{method: "PUT", path: "/api/v1/mcp/servers/{name}", summary: "Add or replace an MCP server in config.json, its entry as pasted from Claude Desktop, Claude Code or Cursor; it applies at once", auth: true, handler: h(s.putMCPServer), request: mcp.Server{}, response: mcpServersBody{}, errors: []int{http.StatusBadRequest, http.StatusNotImplemented}},
		{method: "DELETE", path: "/api/v1/mcp/servers/{name}", summary: "Remove an MCP server from config.json; runs connected to it keep their session until they end", auth: true, handler: h(s.removeMCPServer), response: mcpServersBody{}, errors: []int{http.StatusNotFound, http.StatusNotImplemented}},
		{method: "PUT", path: "/api/v1/mcp/servers/{name}/state", summary: "Enable or disable, trust or distrust an MCP server, keeping the rest of its entry", auth: true, handler: h(s.setMCPState), request: MCPState{}, response: mcpServersBody{}, errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusNotImplemented}},
		{method: "POST", path: "/api/v1/mcp/servers/{name}/test", summary: "Test an MCP server: connect as a run would, list its tools with their annotations and the risk Steward gives them, with the end of its stderr", auth: true, handler: h(s.testMCPServer), response: mcp.ConnectionTest{}, errors: []int{http.StatusNotFound, http.StatusNotImplemented}},
		{method: "GET", path: "/api/v1/mcp/project", summary: "A workspace's .mcp.json for review: the servers it declares (what each runs or reaches), those refused, the variables it reads, and whether the person approved it as it is", auth: true, handler: h(s.viewProject), response: mcp.ProjectView{}, query: []queryParam{qProjectWorkspace}, errors: []int{http.StatusBadRequest, http.StatusNotImplemented}},
		{method: "POST", path: "/api/v1/mcp/project/approve", summary: "Approve a workspace's .mcp.json as the person was shown it (its SHA-256): runs of agents that use project servers are offered its servers; 409 when the file changed since", auth: true, handler: h(s.approveProject), request: ProjectApproval{}, response: mcp.ProjectView{}, errors: []int{http.StatusBadRequest, http.StatusConflict, http.StatusNotImplemented}},
		{method: "POST", path: "/api/v1/mcp/project/revoke", summary: "Take back the approval of a workspace's .mcp.json: runs started after are offered none of its servers", auth: true, handler: h(s.revokeProject), request: ProjectRevocation{}, response: mcp.ProjectView{}, errors: []int{http.StatusBadRequest, http.StatusNotImplemented}},
		{method: "POST", path: "/api/v1/desktop/folder", summary: "Choose a folder with the desktop window's native dialog (501 outside the desktop window)", auth: true, handler: h(s.pickFolder), request: FolderInput{}, response: FolderChoice{}, errors: []int{http.StatusConflict, http.StatusNotImplemented}},
		{method: "GET", path: "/api/v1/tools", summary: "The tool catalog with schemas and risks", auth: true, handler: h(s.tools), response: toolsBody{}},
		{method: "GET", path: "/api/v1/openapi.json", summary: "This document", auth: true, handler: h(s.openapi)},
		{method: "GET", path: "/api/v1/ws", summary: "WebSocket: subscribe to events, send commands and answers", auth: true, handler: http.HandlerFunc(s.ws), errors: []int{http.StatusUpgradeRequired}},
	}
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, statusBody{Status: "ok"})
	return nil
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	if err := s.cfg.Store.Ping(r.Context()); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, statusBody{Status: "store unavailable"})
		return nil
	}
	writeJSON(w, http.StatusOK, statusBody{Status: "ready"})
	return nil
}

func (s *Server) info(w http.ResponseWriter, r *http.Request) error {
	p, demo, note := s.cfg.Models.Describe(r.Context())
	out := Info{Version: s.cfg.Version, DefaultWorkspace: s.cfg.DefaultWorkspace, Provider: p, Demo: demo, Note: note,
		Desktop: s.cfg.Desktop != nil, Sandbox: SandboxInfo{Available: true}}
	if s.cfg.Sandbox == nil {
		out.Sandbox = SandboxInfo{Reason: "no sandbox was set up for commands"}
	} else if err := s.cfg.Sandbox.Available(); err != nil {
		out.Sandbox = SandboxInfo{Reason: err.Error()}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) wireAgent(ctx context.Context, a agent.Agent) Agent {
	out := Agent{Agent: a}
	if m, err := s.cfg.Models.Resolve(ctx, a); err == nil {
		out.EffectiveProvider, out.EffectiveModel, out.Demo = m.Name, m.Model, m.Demo
	} else {
		out.EffectiveProvider = "unavailable: " + err.Error()
	}
	return out
}

func (s *Server) listAgents(w http.ResponseWriter, r *http.Request) error {
	all, err := s.cfg.Agents.List(r.Context())
	if err != nil {
		return err
	}
	out := agentsBody{Agents: make([]Agent, len(all))}
	for i, a := range all {
		out.Agents[i] = s.wireAgent(r.Context(), a)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) createAgent(w http.ResponseWriter, r *http.Request) error {
	var in AgentInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	a, err := s.cfg.Agents.Create(r.Context(), in.agent())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.wireAgent(r.Context(), a))
	return nil
}

func (s *Server) getAgent(w http.ResponseWriter, r *http.Request) error {
	a, err := s.cfg.Agents.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.wireAgent(r.Context(), a))
	return nil
}

func (s *Server) updateAgent(w http.ResponseWriter, r *http.Request) error {
	var in AgentInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	a, err := s.cfg.Agents.Update(r.Context(), r.PathValue("id"), in.agent())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.wireAgent(r.Context(), a))
	return nil
}

func (s *Server) deleteAgent(w http.ResponseWriter, r *http.Request) error {
	if err := s.cfg.Agents.Delete(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) error {
	f := store.RunFilter{Agent: qRunAgent.get(r), Text: qRunText.get(r)}
	var err error
	if f.Statuses, err = qRunStatus.values(r); err != nil {
		return err
	}
	attention, err := qRunAttention.value(r)
	if err != nil {
		return err
	}
	f.Attention = attention == "true"
	limit, err := qRunLimit.int(r)
	if err != nil {
		return err
	}
	if f.Before, err = decodeRunCursor(qRunBefore.get(r)); err != nil {
		return err
	}
	f.Limit = int(limit) + 1 // one more than the page says whether others follow
	runs, err := s.cfg.Store.ListRuns(r.Context(), f)
	if err != nil {
		return err
	}
	var out runsBody
	if len(runs) > int(limit) {
		runs = runs[:limit]
		last := runs[len(runs)-1]
		out.More, out.NextBefore = true, encodeRunCursor(store.RunCursor{CreatedAt: last.CreatedAt, ID: last.ID})
	}
	out.Runs = make([]Run, len(runs))
	for i, rr := range runs {
		out.Runs[i] = wireRun(rr)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) startRun(w http.ResponseWriter, r *http.Request) error {
	var in StartRun
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Agent) == "" {
		return errorf(http.StatusBadRequest, CodeInvalid, "agent is empty: name an agent by id or name")
	}
	a, err := s.cfg.Agents.Get(r.Context(), in.Agent)
	if errors.Is(err, store.ErrNotFound) {
		return errorf(http.StatusBadRequest, CodeInvalid, "agent "+strconv.Quote(in.Agent)+" does not exist")
	}
	if err != nil {
		return err
	}
	rr, err := s.cfg.Runs.Start(r.Context(), run.StartParams{Agent: a, Instructions: in.Instructions, Workspace: in.Workspace, Unattended: in.Unattended, BreakBefore: in.BreakBefore, Limits: in.Limits, Model: in.Model, Mode: string(in.Mode), Rules: in.Rules,
		Sandbox: string(in.Sandbox), SandboxNetwork: string(in.SandboxNetwork)})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, wireRun(rr))
	return nil
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) error {
	rr, err := s.cfg.Store.GetRun(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wireRun(rr))
	return nil
}

func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	rr, err := s.cfg.Store.GetRun(r.Context(), id)
	if err != nil {
		return err
	}
	after, err := qEventsAfter.int(r)
	if err != nil {
		return err
	}
	limit, err := qEventsLimit.int(r)
	if err != nil {
		return err
	}
	evs, err := s.cfg.Store.Events(r.Context(), id, after, int(limit)+1)
	if err != nil {
		return err
	}
	more := len(evs) > int(limit)
	if more {
		evs = evs[:limit]
	}
	body := eventsBody{Events: make([]Event, len(evs)), NextAfter: after, More: more}
	facts := factsOf(rr)
	for i, ev := range evs {
		body.Events[i] = facts.wire(ev)
		body.NextAfter = ev.Seq
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

func (s *Server) graph(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if _, err := s.cfg.Store.GetRun(r.Context(), id); err != nil {
		return err
	}
	nodes, edges, err := s.cfg.Store.Graph(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wireGraph(nodes, edges))
	return nil
}

func (s *Server) node(w http.ResponseWriter, r *http.Request) error {
	id, nodeID := r.PathValue("id"), r.PathValue("node")
	if _, err := s.cfg.Store.GetRun(r.Context(), id); err != nil {
		return err
	}
	nodes, edges, err := s.cfg.Store.Graph(r.Context(), id)
	if err != nil {
		return err
	}
	g := wireGraph(nodes, edges)
	var d NodeDetail
	found := false
	for _, n := range g.Nodes {
		if n.ID == nodeID {
			d.Node, found = n, true
		}
	}
	if !found {
		return errorf(http.StatusNotFound, CodeNotFound, "run "+id+" has no node "+strconv.Quote(nodeID))
	}
	if d.Events, err = s.cfg.Store.NodeEvents(r.Context(), id, nodeID); err != nil {
		return err
	}
	if d.Node.Kind == "llm" {
		if d.Input, err = s.cfg.Runs.NodeInput(r.Context(), id, nodeID); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

func (s *Server) command(w http.ResponseWriter, r *http.Request) error {
	var c Command
	if err := decode(w, r, &c); err != nil {
		return err
	}
	res, err := s.cfg.Runs.Command(r.Context(), r.PathValue("id"), c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

func (s *Server) tools(w http.ResponseWriter, r *http.Request) error {
	specs := s.cfg.Tools.Specs()
	if specs == nil {
		specs = []ToolSpec{}
	}
	writeJSON(w, http.StatusOK, toolsBody{Tools: specs})
	return nil
}

func intParam(v, name string, def, min, max int64) (int64, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < min || n > max {
		return 0, errorf(http.StatusBadRequest, CodeInvalid, name+" must be an integer from "+strconv.FormatInt(min, 10)+" to "+strconv.FormatInt(max, 10))
	}
	return n, nil
}

func asMaxBytes(err error, target **http.MaxBytesError) bool { return errors.As(err, target) }
