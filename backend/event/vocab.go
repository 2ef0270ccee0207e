package event

// The vocabularies the log records, each a named type with its one list of
// values. They are part of the log's schema (SchemaVersion), so they live
// here, and the packages that decide by them name these types: tool.Risk
// is Risk, policy.Effect is Effect, and so on. The API's document gives
// each as an enum (api/vocab.go), and the UI's wire types with it.

// Effect is the outcome of a policy decision (policy.Effect).
type Effect string

// Effects.
const (
	EffectAllow Effect = "allow"
	EffectAsk   Effect = "ask"
	EffectDeny  Effect = "deny"
)

// Effects lists the effects.
var Effects = []Effect{EffectAllow, EffectAsk, EffectDeny}

// Mode is a permission mode (policy.Mode; policy.Modes lists them).
type Mode string

// Risk says what a tool can do (tool.Risk).
type Risk string

// Risks, from least to most dangerous.
const (
	RiskRead        Risk = "read"        // reads the workspace
	RiskWrite       Risk = "write"       // changes the workspace
	RiskExec        Risk = "exec"        // runs a program
	RiskNetwork     Risk = "network"     // reaches the network
	RiskDestructive Risk = "destructive" // can lose work
)

// Risks lists the risks, from least to most dangerous.
var Risks = []Risk{RiskRead, RiskWrite, RiskExec, RiskNetwork, RiskDestructive}

// Access is how a call touches a path (tool.Access).
type Access string

// Accesses.
const (
	AccessRead  Access = "read"
	AccessWrite Access = "write"
)

// Accesses lists the accesses.
var Accesses = []Access{AccessRead, AccessWrite}

// SandboxMode is the sandbox setting of an agent or a run (package
// sandbox says what each does).
type SandboxMode string

// Sandbox modes.
const (
	SandboxAuto = "auto" // sandboxed where bubblewrap works; elsewhere every command asks
	SandboxOn   = "on"   // sandboxed, or refused
	SandboxOff  = "off"  // never sandboxed: commands see what the server's user sees
)

// SandboxModes lists the sandbox modes.
var SandboxModes = []SandboxMode{SandboxAuto, SandboxOn, SandboxOff}

// SandboxNetwork says whether sandboxed commands have the network.
type SandboxNetwork string

// Network settings.
const (
	NetworkOff = "off" // no network, loopback included
	NetworkOn  = "on"  // the machine's network
)

// SandboxNetworks lists the network settings.
var SandboxNetworks = []SandboxNetwork{NetworkOff, NetworkOn}

// ForkFilesChoice is what a fork does with the workspace's files (see
// ForkFiles).
type ForkFilesChoice string

// Fork file choices.
const (
	ForkKeep    ForkFilesChoice = "keep"    // the files stay as they are: the fork works in the same folder
	ForkRestore ForkFilesChoice = "restore" // the source run's changes after the node are taken back, in the same folder
	ForkCopy    ForkFilesChoice = "copy"    // the folder is copied to a sibling folder, which the fork works in
)

// ForkFilesChoices lists the fork file choices.
var ForkFilesChoices = []ForkFilesChoice{ForkKeep, ForkRestore, ForkCopy}

// NextKind is what a paused run does next: a model call or a tool call.
type NextKind string

// Next kinds.
const (
	NextModel = "model"
	NextTool  = "tool"
)

// NextKinds lists the next kinds.
var NextKinds = []NextKind{NextModel, NextTool}

// PlanStatus is the status of a step of a run's plan.
type PlanStatus string

// Plan step statuses.
const (
	PlanPending    = "pending"
	PlanInProgress = "in_progress"
	PlanDone       = "done"
)

// PlanStatuses lists the plan step statuses.
var PlanStatuses = []PlanStatus{PlanPending, PlanInProgress, PlanDone}

// GrantScope is where a saved answer (a grant) holds: in one run, for one
// agent, or everywhere.
type GrantScope string

// Grant scopes.
const (
	ScopeRun        = "run"
	ScopeAgent      = "agent"
	ScopeEverywhere = "everywhere"
)

// GrantScopes lists the grant scopes.
var GrantScopes = []GrantScope{ScopeRun, ScopeAgent, ScopeEverywhere}

// ArtifactKind is what a file a run produced is. A reader meets kinds of
// later versions as they are.
type ArtifactKind string

// Artifact kinds.
const (
	ArtifactScreenshot = "screenshot"
	ArtifactVideo      = "video"
	// ArtifactFrames is a recording's frames left unencoded (no ffmpeg).
	ArtifactFrames = "frames"
	// ArtifactImage is a picture a tool returned that is no screenshot of
	// the run's browser (an MCP server's image content).
	ArtifactImage = "image"
)

// ArtifactKinds lists the artifact kinds.
var ArtifactKinds = []ArtifactKind{ArtifactScreenshot, ArtifactVideo, ArtifactFrames, ArtifactImage}

// MCPServerState is what became of an MCP server a run uses (an mcp.server
// event). A reader meets states of later versions as they are.
type MCPServerState string

// MCP server states.
const (
	// MCPConnected: a session with the server is open, in an era, over a
	// transport.
	MCPConnected = "connected"
	// MCPCrashed: the server stopped, or could no longer be reached, while
	// the run held a session with it.
	MCPCrashed = "crashed"
	// MCPRestarted: the server is being started again after it crashed or
	// could not be started; connected or failed follows.
	MCPRestarted = "restarted"
	// MCPFailed: the server could not be started or reached.
	MCPFailed = "failed"
)

// MCPServerStates lists the MCP server states.
var MCPServerStates = []MCPServerState{MCPConnected, MCPCrashed, MCPRestarted, MCPFailed}

// ProjectState is what became of a workspace's .mcp.json: a repository can
// ship a hostile one, so its servers run only once the person approved the
// file as it is, and again after every change.
type ProjectState string

// Project states.
const (
	ProjectNone       = "none"       // the workspace has no .mcp.json
	ProjectUnapproved = "unapproved" // never approved in this workspace
	ProjectChanged    = "changed"    // approved, then changed: approve it again
	ProjectApproved   = "approved"   // approved as it is: its servers are offered
	ProjectInvalid    = "invalid"    // cannot be read or used (Error says why)
)

// ProjectStates lists the project states.
var ProjectStates = []ProjectState{ProjectNone, ProjectUnapproved, ProjectChanged, ProjectApproved, ProjectInvalid}
