// Package policy decides, as pure functions, whether a tool call runs, waits
// for a person, or is refused: given the permission mode, the rules, the
// tool's risk and key argument, and whether anybody is there to ask.
package policy

import (
	"encoding/json"

	"steward/backend/tool"
)

// Effect is the outcome of a decision.
type Effect string

// Effects.
const (
	Allow Effect = "allow"
	Ask   Effect = "ask"
	Deny  Effect = "deny"
)

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
func ValidMode(m string) bool {
	switch m {
	case ModeAsk, ModeEdits, ModePlan, ModeAuto:
		return true
	}
	return false
}

// Offered reports whether a tool of risk r is offered to the model in mode
// m: plan mode offers read tools only.
func Offered(m string, r tool.Risk) bool {
	return m != ModePlan || r == tool.RiskRead
}

// Input is everything a decision depends on.
type Input struct {
	Mode string
	Tool string
	Risk tool.Risk
	// Args are the call's raw JSON arguments; rules match their key
	// argument (see KeyArgument).
	Args json.RawMessage
	// Workspace is the run's root: an absolute path beneath it is matched
	// as the relative path it names.
	Workspace string
	// Rules from every source (agent, run, config) apply together.
	Rules []Rule
	// Unattended runs have nobody to ask: ask becomes deny.
	Unattended bool
	// Key, when set, is the call's key argument as its tool decides it (the
	// domain of the page a browser tool acts on), in place of the one read
	// from Args.
	Key *string
	// Sandbox says, for a tool whose program runs in the OS sandbox,
	// whether the sandbox can confine this call (see sandbox.go).
	Sandbox Sandbox
}

// Decision is an effect and the reason shown in the audit log.
type Decision struct {
	Effect Effect
	Reason string
}

// Decide returns the decision for one tool call. In plan mode a tool that is
// not read-only is denied whatever the rules say. Otherwise a matching rule
// decides over the mode: deny beats ask beats allow among the rules that
// match. Unknown modes and risks fail closed: they ask (or deny when
// unattended).
func Decide(in Input) Decision {
	d := unsandboxed(in, decide(in))
	if d.Effect == Ask && in.Unattended {
		return Decision{Effect: Deny, Reason: "unattended run: nobody to ask, so " + d.Reason + " is denied"}
	}
	return d
}

func decide(in Input) Decision {
	if in.Mode == ModePlan && in.Risk != tool.RiskRead {
		return Decision{Effect: Deny, Reason: "mode plan: " + string(in.Risk) + " tool " + in.Tool +
			" is not available while planning; only read-only tools run"}
	}
	if in.Tool == "apply_patch" {
		return decidePatch(in)
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
	return decideMode(in)
}

// decidePatch decides a patch by every file it touches: a rule that denies
// (or asks about) any of them decides for the whole patch, and rules allow
// it only when each file has a rule that allows it. Otherwise the mode
// decides. A rule on *.env thus holds for apply_patch as for write_file.
func decidePatch(in Input) Decision {
	var strongest Rule
	found, allAllowed := false, true
	paths := patchPaths(in.Args)
	for _, p := range paths {
		r, ok := matchRules(in.Rules, in.Tool, relative(p, in.Workspace), true)
		if !ok {
			allAllowed = false
			continue
		}
		if !found || rank(r.Effect) > rank(strongest.Effect) {
			strongest, found = r, true
		}
	}
	switch {
	case found && strongest.Effect != Allow:
		return Decision{Effect: strongest.Effect, Reason: strongest.String()}
	case found && allAllowed && len(paths) > 0:
		return Decision{Effect: Allow, Reason: strongest.String()}
	}
	return decideMode(in)
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
		return Decision{Effect: Ask, Reason: "unknown mode " + in.Mode + ": " + in.Tool + " needs approval"}
	}
}
