// Package event holds the versioned wire schema of a run's event log and the
// bus that delivers committed events to subscribers.
//
// An event is immutable once appended. Its seq is dense per run, starting at 1,
// and assigned by the store when the event commits. Every consumer (the
// transcript, the graph, the inbox, exports, the WebSocket) reads the same
// events; the payload of each type is documented next to its data struct.
package event

import "encoding/json"

// SchemaVersion is the version of the event payloads below. It grows when a
// payload changes in a way an old reader cannot ignore.
const SchemaVersion = 1

// Event is one entry of a run's log.
type Event struct {
	RunID  string          `json:"run_id"`
	Seq    int64           `json:"seq"`
	TS     int64           `json:"ts"` // unix milliseconds, from the injected clock
	Type   Type            `json:"type"`
	NodeID string          `json:"node_id,omitempty"`
	Data   json.RawMessage `json:"data"`
}

// Type names an event payload.
type Type string

// The event types of schema version 1.
const (
	RunCreated        Type = "run.created"        // RunCreatedData
	RunStatus         Type = "run.status"         // RunStatusData
	NodeStarted       Type = "node.started"       // NodeStartedData
	LLMDelta          Type = "llm.delta"          // LLMDeltaData
	NodeFinished      Type = "node.finished"      // NodeFinishedData
	PolicyDecided     Type = "policy.decided"     // PolicyDecidedData
	ApprovalRequested Type = "approval.requested" // ApprovalRequestedData
	ApprovalDecided   Type = "approval.decided"   // ApprovalDecidedData
	ToolExecuting     Type = "tool.executing"     // ToolExecutingData
	LLMAttempt        Type = "llm.attempt"        // LLMAttemptData
	RunForked         Type = "run.forked"         // RunForkedData
	RunLimits         Type = "run.limits"         // RunLimitsData
	RunPlan           Type = "run.plan"           // RunPlanData
	FileChanged       Type = "file.changed"       // FileChangedData
	ArtifactCreated   Type = "artifact.created"   // ArtifactCreatedData
	RunBreakpoints    Type = "run.breakpoints"    // RunBreakpointsData
	ReplayDiverged    Type = "replay.diverged"    // ReplayDivergedData
	MCPServer         Type = "mcp.server"         // MCPServerData
	ToolProgress      Type = "tool.progress"      // ToolProgressData
)

// Payload is an event type and a zero value of its payload's type.
type Payload struct {
	Type Type
	Data any
}

// Payloads lists every event type of this schema version with its
// payload's type, in the order of the constants above: the one list of
// them, from which the API's document describes each payload (and the UI's
// wire types are generated).
func Payloads() []Payload {
	return []Payload{
		{RunCreated, RunCreatedData{}},
		{RunStatus, RunStatusData{}},
		{NodeStarted, NodeStartedData{}},
		{LLMDelta, LLMDeltaData{}},
		{NodeFinished, NodeFinishedData{}},
		{PolicyDecided, PolicyDecidedData{}},
		{ApprovalRequested, ApprovalRequestedData{}},
		{ApprovalDecided, ApprovalDecidedData{}},
		{ToolExecuting, ToolExecutingData{}},
		{LLMAttempt, LLMAttemptData{}},
		{RunForked, RunForkedData{}},
		{RunLimits, RunLimitsData{}},
		{RunPlan, RunPlanData{}},
		{FileChanged, FileChangedData{}},
		{ArtifactCreated, ArtifactCreatedData{}},
		{RunBreakpoints, RunBreakpointsData{}},
		{ReplayDiverged, ReplayDivergedData{}},
		{MCPServer, MCPServerData{}},
		{ToolProgress, ToolProgressData{}},
	}
}

// New builds an unsequenced event whose Data is the JSON of data. It panics
// only if data cannot be marshalled, which for the payload structs of this
// package cannot happen.
func New(runID string, typ Type, nodeID string, data any) Event {
	b, err := json.Marshal(data)
	if err != nil {
		panic("event: marshal " + string(typ) + ": " + err.Error())
	}
	return Event{RunID: runID, Type: typ, NodeID: nodeID, Data: b}
}

// Decode unmarshals the event's payload into v.
func (e Event) Decode(v any) error { return json.Unmarshal(e.Data, v) }

// IsRunLevel reports whether the event belongs on the run-list and inbox
// stream (subscribers that watch all runs) as well as on the run's own stream.
func (e Event) IsRunLevel() bool {
	switch e.Type {
	case RunCreated, RunStatus, ApprovalRequested, ApprovalDecided, RunForked:
		return true
	}
	return false
}
