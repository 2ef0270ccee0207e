package run

import (
	"fmt"

	"steward/backend/agent"
	"steward/backend/event"
	"steward/backend/policy"
	"steward/backend/sandbox"
)

// Sandbox says what becomes of a run's commands on this machine.
type Sandbox interface {
	State(set sandbox.Settings) sandbox.State
}

var _ Sandbox = (*sandbox.Sandbox)(nil)

// sandboxState is the state of the sandbox for the commands of a run of ag.
// With no Sandbox configured, the machine has none.
func (s *Service) sandboxState(ag agent.Agent) sandbox.State {
	var sb Sandbox = (*sandbox.Sandbox)(nil)
	if s.cfg.Sandbox != nil {
		sb = s.cfg.Sandbox
	}
	return sb.State(ag.SandboxSettings())
}

// sandboxPolicy is what the policy must know of st for a call of a tool
// that runs its program in the sandbox: nothing when the sandbox confines
// it, or when the person turned it off.
func sandboxPolicy(st sandbox.State) policy.Sandbox {
	if st.Confined || st.Mode == sandbox.ModeOff {
		return policy.Sandbox{}
	}
	return policy.Sandbox{Missing: st.Reason, Required: st.Mode == sandbox.ModeOn}
}

// eventSandbox is st as run.created records it.
func eventSandbox(st sandbox.State) *event.Sandbox {
	network := sandbox.NetworkOff
	if st.Network {
		network = sandbox.NetworkOn
	}
	return &event.Sandbox{Mode: event.SandboxMode(st.Mode), Network: event.SandboxNetwork(network), Confined: st.Confined, Reason: st.Reason}
}

// withSandbox applies a run's overrides of the agent's sandbox settings
// (empty keeps the agent's), and checks them.
func withSandbox(a agent.Agent, mode, network string) (agent.Agent, error) {
	if mode != "" {
		a.Sandbox = event.SandboxMode(mode)
	}
	if network != "" {
		a.SandboxNetwork = event.SandboxNetwork(network)
	}
	set := a.SandboxSettings()
	if err := set.Validate(); err != nil {
		return a, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	a.Sandbox, a.SandboxNetwork = event.SandboxMode(set.EffectiveMode()), event.SandboxNetwork(set.EffectiveNetwork())
	return a, nil
}
