package mcp

import (
	"fmt"
	"regexp"
	"strings"

	"steward/backend/tool"
)

// Tool names are mcp__<server>__<tool>, the names people know from Claude
// Code.
const (
	namePrefix = "mcp__"
	nameSep    = "__"
	// maxName is the longest tool name the providers take.
	maxName = 64
)

// Prefix is what the names of server's tools start with.
func Prefix(server string) string { return namePrefix + server + nameSep }

// Pattern is an agent's name for all of server's tools ("mcp__github__*").
func Pattern(server string) string { return tool.Pattern(Prefix(server)) }

// invalidRE matches what a provider refuses in a tool name.
var invalidRE = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// ToolName is the Steward name of the server's tool named remote: what a
// provider refuses becomes '_', and a name too long is cut to fit. Two
// remote names may so become one: Tools reports that as an error naming
// both. The server's name was checked at load (nameRE).
func ToolName(server, remote string) (string, error) {
	if remote == "" {
		return "", fmt.Errorf("MCP server %s lists a tool without a name", server)
	}
	n := Prefix(server) + invalidRE.ReplaceAllString(remote, "_")
	if len(n) > maxName {
		n = n[:maxName]
	}
	return n, nil
}

// collision names the two remote tools of one server that got the same
// Steward name.
func collision(server, name, a, b string) error {
	if strings.Compare(a, b) > 0 {
		a, b = b, a
	}
	return fmt.Errorf("MCP server %s: its tools %q and %q would both be named %s", server, a, b, name)
}
