// Package policy decides, as pure functions, whether a tool call runs, waits
// for a person, or is refused: given the permission mode, the rules, the
// tool's risk, what the call touches, and whether anybody is there to ask.
//
// What a call touches is, for a tool that declares it (tool.Toucher), every
// workspace path it will open, resolved as the tool resolves it: rules
// match each path by its real name and by the name the call gave it, and
// the strictest decision over the paths is the call's (touch.go). A write
// of a file whose content programs run later (RunsCode, autorun.go) counts
// as exec. For other tools rules match the key argument: a command line,
// a host. Withheld says what search and listing tools leave out.
package policy

import (
	"encoding/json"

	"steward/backend/event"
	"steward/backend/tool"
)

// Effect is the outcome of a decision (event.Effects lists them).
type Effect = event.Effect

// Effects.
const (
	Allow = event.EffectAllow
	Ask   = event.EffectAsk
	Deny  = event.EffectDeny
)

// Mode is a permission mode (Modes lists them).
type Mode = event.Mode

// Permission modes. A mode sets the default for each risk; rules refine it.
const (
	ModeAsk   = "ask"   // read tools run, everything else asks
	ModeEdits = "edits" // reads and workspace writes run; exec, network and destructive ask
	ModePlan  = "plan"  // only read tools are offered and run; anything else is denied
	ModeAuto  = "auto"  // everything runs, still confined to the workspace
)

// Modes lists the permission modes, for validation and error messages.
var Modes = []string{ModeAsk, ModeEdits, ModePlan, ModeAuto}

// ValidMode reports whether m is one of Modes.
func ValidMode[M ~string](m M) bool {
	switch m {
	case ModeAsk, ModeEdits, ModePlan, ModeAuto:
		return true
	}
	return false
}

// Offered reports whether a tool of risk r is offered to the model in mode
// m: plan mode offers read tools only.
func Offered(m Mode, r tool.Risk) bool {
	return m != ModePlan || r == tool.RiskRead
}

// Input is everything a decision depends on.
type Input struct {
	Mode Mode
	Tool string
	Risk tool.Risk
	// RiskNote, when set, says why the tool has its risk (tool.Spec); a
	// decision made on the risk says it too.
	RiskNote string
	// Args are the call's raw JSON arguments; when the tool declares no
	// touches, rules match their key argument (see KeyArgument).
	Args json.RawMessage
	// Workspace is the run's root: an absolute path argument beneath it is
	// matched as the relative path it names.
	Workspace string
	// Rules from every source (agent, run, config) apply together.
	Rules []Rule
	// Unattended runs have nobody to ask: ask becomes deny.
	Unattended bool
	// Key, when set, is the call's key argument as its tool decides it (the
	// domain of the page a browser tool acts on), in place of the one read
	// from Args.
	Key *string
	// Touched says that the tool declared the workspace paths the call
	// will open (tool.Toucher): then rules match each of Touches, by its
	// real path and by the name the call gave it, and never the
	// arguments. Touches may be empty: nothing the tool can open (the
	// tool refuses such a call when it runs).
	Touched bool
	Touches []tool.Touch
	// Sandbox says, for a tool whose program runs in the OS sandbox,
	// whether the sandbox can confine this call (see sandbox.go).
	Sandbox Sandbox
}

// Decision is an effect and the reason shown in the audit log.
type Decision struct {
	Effect Effect
	Reason string
	// Risk is the call's risk as the decision weighed it: the tool's, or
	// exec when the call writes a file whose content programs run (see
	// RunsCode).
	Risk tool.Risk
}

// Decide returns the decision for one tool call. In plan mode a tool that is
// not read-only is denied whatever the rules say. Otherwise a matching rule
// decides over the mode: deny beats ask beats allow among the rules that
// match. A call that touches several paths is decided for each of them and
// takes the strictest decision. Unknown modes and risks fail closed: they
// ask (or deny when unattended).
func Decide(in Input) Decision {
	d := unsandboxed(in, decide(in))
	if d.Risk == "" {
		d.Risk = in.Risk
	}
	if d.Effect == Ask && in.Unattended {
		d.Effect, d.Reason = Deny, "unattended run: nobody to ask, so "+d.Reason+" is denied"
	}
	return d
}

func decide(in Input) Decision {
	if in.Mode == ModePlan && in.Risk != tool.RiskRead {
		return noted(Decision{Effect: Deny, Reason: "mode plan: " + string(in.Risk) + " tool " + in.Tool +
			" is not available while planning; only read-only tools run"}, in.RiskNote)
	}
	if in.Touched {
		return decideTouches(in)
	}
	key, isPath := keyArgument(in.Tool, in.Args)
	if in.Key != nil {
		key, isPath = *in.Key, false
	}
	if isPath {
		key = relative(key, in.Workspace)
	}
	if r, ok := matchRules(in.Rules, in.Tool, key, isPath); ok {
		return Decision{Effect: r.Effect, Reason: r.String()}
	}
	return noted(decideMode(in), in.RiskNote)
}

// noted adds why the tool has its risk to a decision made on that risk.
func noted(d Decision, note string) Decision {
	if note != "" {
		d.Reason += " (" + note + ")"
	}
	return d
}

func decideMode(in Input) Decision {
	switch in.Mode {
	case ModeAsk:
		if in.Risk == tool.RiskRead {
			return Decision{Effect: Allow, Reason: "mode ask: read-only tool " + in.Tool + " runs without asking"}
		}
		return Decision{Effect: Ask, Reason: "mode ask: " + string(in.Risk) + " tool " + in.Tool + " needs approval"}
	case ModeEdits:
		switch in.Risk {
		case tool.RiskRead, tool.RiskWrite:
			return Decision{Effect: Allow, Reason: "mode edits: " + string(in.Risk) + " tool " + in.Tool + " runs without asking"}
		}
		return Decision{Effect: Ask, Reason: "mode edits: " + string(in.Risk) + " tool " + in.Tool + " needs approval"}
	case ModePlan: // only reads reach here
		return Decision{Effect: Allow, Reason: "mode plan: read-only tool " + in.Tool + " runs without asking"}
	case ModeAuto:
		return Decision{Effect: Allow, Reason: "mode auto: " + in.Tool + " runs without asking"}
	default:
		return Decision{Effect: Ask, Reason: "unknown mode " + string(in.Mode) + ": " + in.Tool + " needs approval"}
	}
}
