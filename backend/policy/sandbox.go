package policy

// Sandbox says whether the OS sandbox can confine a call of a tool whose
// program runs in it (run_command). The zero value is a call the sandbox
// confines, or one of a tool it does not concern.
type Sandbox struct {
	// Missing, when set, says why the sandbox cannot confine the call
	// although the run's settings want it: the call would run as the
	// server's user, seeing what it sees. Such a call asks whatever the
	// mode and the rules say, and is denied when they deny it.
	Missing string
	// Required means the run's sandbox is on: a call it cannot confine
	// (Missing set) is denied.
	Required bool
}

// unsandboxed turns the decision d on a call that the sandbox should confine
// and cannot into an ask, or a deny when the sandbox is required. A deny
// stays a deny; an ask keeps its reason and says the command is not
// sandboxed.
func unsandboxed(in Input, d Decision) Decision {
	why := in.Sandbox.Missing
	switch {
	case why == "" || d.Effect == Deny:
		return d
	case in.Sandbox.Required:
		return Decision{Effect: Deny, Reason: "sandbox on: " + in.Tool + " cannot run unsandboxed, and " + why}
	case d.Effect == Allow:
		return Decision{Effect: Ask, Reason: "not sandboxed: " + why + "; so " + in.Tool + " needs approval whatever the mode (" + d.Reason + ")"}
	}
	return Decision{Effect: d.Effect, Reason: d.Reason + "; not sandboxed: " + why}
}
