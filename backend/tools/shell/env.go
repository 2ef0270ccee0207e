package shell

import "steward/backend/sandbox"

// Env returns the environment of commands that tools run for the agent:
// sandbox.Env, the allowlist of the server's environment with no API key or
// token of the server in it.
func Env() []string { return sandbox.Env() }
