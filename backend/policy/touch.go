package policy

import (
	"slices"

	"steward/backend/tool"
)

// touchDecision is the decision on one path of a call.
type touchDecision struct {
	Decision
	raised bool // the path made the call an exec (RunsCode)
	byRule bool
}

// decideTouches decides a call by every path it touches (Input.Touched):
// each path is decided on its own, by the rules that match its real path
// or the name the call gave it, else by the mode, and the strictest
// decision is the call's. A rule on **/*.env so holds for a symlink to
// .env, for a patch that creates conf/.env whatever it calls it, and for
// a patch of several files of which one is .env.
func decideTouches(in Input) Decision {
	risk := in.Risk
	for _, t := range in.Touches {
		if _, ok := runsCodeTouch(t); ok {
			risk = tool.RiskExec
		}
	}
	if len(in.Touches) == 0 {
		// Nothing the tool can open: it will refuse the call. Rules on
		// any call of the tool still hold, and the mode.
		if r, ok := matchNames(in.Rules, in.Tool, nil); ok {
			return Decision{Effect: r.Effect, Reason: r.String(), Risk: risk}
		}
		d := decideMode(in)
		d.Risk = risk
		return d
	}
	var worst touchDecision
	for i, t := range in.Touches {
		d := decideTouch(in, t)
		stricter := rank(d.Effect) > rank(worst.Effect) ||
			// Of equal effects the one that says why most: an exec
			// before a plain write, a rule before the mode.
			rank(d.Effect) == rank(worst.Effect) && (d.raised && !worst.raised || d.byRule && !worst.byRule && d.raised == worst.raised)
		if i == 0 || stricter {
			worst = d
		}
	}
	d := worst.Decision
	if !worst.byRule && !worst.raised {
		// The mode decided: still say where a link leads, for the person
		// who approves.
		for _, t := range in.Touches {
			if len(t.Names()) > 1 {
				d.Reason += " (" + string(t.Access) + " " + t.String() + ")"
				break
			}
		}
	}
	d.Risk = risk
	return d
}

// decideTouch decides one path of a call. A write inside a .git folder (or
// of a .git file) is denied. A path whose write makes the call an exec
// asks in every mode but auto, also when a rule allows the tool by a glob:
// only a rule that names the file exactly (a grant of an earlier approval
// is one) lets it run without asking. Deny and ask rules hold as
// everywhere.
func decideTouch(in Input, t tool.Touch) touchDecision {
	why, raised := runsCodeTouch(t)
	if t.Access == tool.AccessWrite && slices.ContainsFunc(t.Names(), InGitDir) {
		// The file tools refuse these writes whatever is decided (see
		// tools/fs): asking would be asking for nothing.
		return touchDecision{Decision: Decision{Effect: Deny, Reason: in.Tool + " writes " + t.String() + ", " + gitWhy +
			": a repository's own files are never changed by a tool that writes files; the git tools work on the repository"}, raised: true}
	}
	if r, ok := matchNames(in.Rules, in.Tool, t.Names()); ok {
		if r.Effect != Allow || !raised || in.Mode == ModeAuto || literal(r.Match) {
			return touchDecision{Decision: Decision{Effect: r.Effect, Reason: r.String() + " on " + t.String()}, raised: raised, byRule: true}
		}
	}
	if !raised {
		return touchDecision{Decision: decideMode(in)}
	}
	what := in.Tool + " writes " + t.String() + ", " + why
	switch in.Mode {
	case ModeAuto:
		return touchDecision{Decision: Decision{Effect: Allow, Reason: "mode auto: " + what + "; it runs without asking"}, raised: true}
	case ModeAsk, ModeEdits:
		return touchDecision{Decision: Decision{Effect: Ask, Reason: "mode " + string(in.Mode) + ": " + what + ": that is risk exec, which needs approval"}, raised: true}
	case ModePlan:
		return touchDecision{Decision: Decision{Effect: Deny, Reason: "mode plan: " + what + ": that is risk exec, which does not run while planning"}, raised: true}
	}
	return touchDecision{Decision: Decision{Effect: Ask, Reason: "unknown mode " + string(in.Mode) + ": " + what + ": needs approval"}, raised: true}
}

// runsCodeTouch is RunsCode for a write by any of the touch's names.
func runsCodeTouch(t tool.Touch) (string, bool) {
	if t.Access != tool.AccessWrite {
		return "", false
	}
	for _, n := range t.Names() {
		if why, ok := RunsCode(n); ok {
			return why, true
		}
	}
	return "", false
}

// Withheld reports whether a search or listing by in.Tool must leave t out
// of what it shows: a rule that names paths (its Match is not empty), for
// in.Tool or for read_file, denies reading t or asks first. Showing a
// file's lines or its name is reading it, so a rule against read_file
// holds for grep too. Rules with an empty Match decide whole calls, not
// what a call shows; the mode does not count, as every mode lets a run
// read.
func Withheld(in Input, t tool.Touch) bool {
	names := t.Names()
	for _, name := range []string{in.Tool, "read_file"} {
		for _, r := range in.Rules {
			if r.Match == "" || r.Effect == Allow || (r.Tool != name && !globFlat(r.Tool, name)) {
				continue
			}
			for _, n := range names {
				if Glob(r.Match, n) {
					return true
				}
			}
		}
	}
	return false
}
