// Package policy decides, as pure functions, whether a tool call runs, waits
// for a person, or is refused: given the permission mode, the tool's risk and
// whether anybody is there to ask.
package policy

import "steward/backend/tool"

// Effect is the outcome of a decision.
type Effect string

// Effects.
const (
	Allow Effect = "allow"
	Ask   Effect = "ask"
	Deny  Effect = "deny"
)

// Input is everything a decision depends on.
type Input struct {
	Mode string
	Tool string
	Risk tool.Risk
	// Unattended runs have nobody to ask: ask becomes deny.
	Unattended bool
}

// Decision is an effect and the reason shown in the audit log.
type Decision struct {
	Effect Effect
	Reason string
}

// Decide returns the decision for one tool call. Unknown modes and risks
// fail closed: they ask (or deny when unattended).
func Decide(in Input) Decision {
	d := decideMode(in)
	if d.Effect == Ask && in.Unattended {
		return Decision{Effect: Deny, Reason: "unattended run: nobody to ask, so " + d.Reason + " is denied"}
	}
	return d
}

func decideMode(in Input) Decision {
	switch in.Mode {
	case "ask":
		if in.Risk == tool.RiskRead {
			return Decision{Effect: Allow, Reason: "mode ask: read-only tool " + in.Tool + " runs without asking"}
		}
		return Decision{Effect: Ask, Reason: "mode ask: " + string(in.Risk) + " tool " + in.Tool + " needs approval"}
	default:
		return Decision{Effect: Ask, Reason: "unknown mode " + in.Mode + ": " + in.Tool + " needs approval"}
	}
}
