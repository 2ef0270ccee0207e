package mcp

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"steward/backend/tool"
)

// riskNote says why a tool of server s, named name, has its risk when the
// server is untrusted: the policy's reasons and the approval carry it.
func riskNote(name string, s Server) string {
	switch {
	case s.Trusted:
		return ""
	case s.transport() == TypeStdio:
		return "MCP server " + name + " is not trusted: its tools are exec, a program Steward runs, whatever their annotations say"
	}
	return "MCP server " + name + " is not trusted: its tools are network, whatever their annotations say"
}

// risk is the risk of a tool of server s with annotations a.
//
// A server is untrusted unless its person marks it trusted: what it says
// of its own tools is a claim from outside, so an untrusted server's tools
// are exec (a stdio server is a program Steward runs) or network (an http
// or sse server is reached over the network), which ask in modes ask and edits,
// are not offered in plan and run in auto only, whatever the annotations.
//
// A trusted server's annotations decide, read with the specification's
// defaults (destructiveHint and openWorldHint are true when absent, and
// matter only when readOnlyHint is false): read-only is read, destructive
// is destructive, open-world is network, and a tool that says it is none
// of these changes only what it is given: write.
func risk(s Server, a *sdk.ToolAnnotations) tool.Risk {
	if !s.Trusted {
		if s.transport() != TypeStdio {
			return tool.RiskNetwork
		}
		return tool.RiskExec
	}
	if a == nil {
		a = &sdk.ToolAnnotations{}
	}
	switch {
	case a.ReadOnlyHint:
		return tool.RiskRead
	case a.DestructiveHint == nil || *a.DestructiveHint:
		return tool.RiskDestructive
	case a.OpenWorldHint == nil || *a.OpenWorldHint:
		return tool.RiskNetwork
	}
	return tool.RiskWrite
}
