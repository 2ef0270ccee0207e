package sandbox

import (
	"path/filepath"
	"regexp"
	"strings"
)

// netFailure matches what programs print when they find no network: no
// route (there is no interface but loopback), no name server, nothing
// listening on loopback (the machine's servers are outside the namespace).
var netFailure = regexp.MustCompile(`(?i)network is unreachable|enetunreach|temporary failure in name resolution|` +
	`could not resolve|name or service not known|no address associated|eai_again|getaddrinfo|no such host|` +
	`connection refused|econnrefused|failed to connect|unable to connect|could not connect|network unreachable|` +
	`dial tcp|dial udp|lookup [^ ]+ on`)

// readOnly matches a write refused by a read-only mount.
var readOnly = regexp.MustCompile(`(?i)read-only file system|erofs`)

// Explain returns what a person and the model should know about a command
// that failed in the sandbox, from its output: that the network is off,
// that the file system outside the workspace is read-only, that a path it
// names is hidden. It returns nothing for output that shows none of these.
func (s *Sandbox) Explain(c Command, output string) []string {
	var notes []string
	if strings.HasPrefix(output, "bwrap: ") {
		notes = append(notes, "the sandbox could not be set up for this command (bubblewrap's message is above): "+
			"the command did not run; tell the user, who can check the machine with steward doctor")
	}
	if !c.Network && netFailure.MatchString(output) {
		notes = append(notes, "network is off for this agent: commands run in a sandbox with no network, "+
			"so neither the internet nor servers on this machine (loopback) can be reached. "+
			"If the task needs the network, say so: the person can turn sandbox_network on for this agent or run")
	}
	if readOnly.MatchString(output) {
		notes = append(notes, "the sandbox lets commands write only in the workspace and in /tmp "+
			"(private to each command, emptied when it ends); everything else, the home folder included, is read-only")
	}
	home := homeOf(c.Env)
	for _, h := range s.hidden() {
		if within(c.Workspace, h.path) && !within(h.path, c.Workspace) {
			continue // an ancestor of the workspace: its name is everywhere
		}
		name := h.path
		if home != "" && within(h.path, home) && h.path != home {
			rel, err := filepath.Rel(home, h.path)
			if err == nil && (strings.Contains(output, "~/"+rel) || strings.Contains(output, "$HOME/"+rel)) {
				name = "~/" + rel
			}
		}
		if strings.Contains(output, h.path) || name != h.path {
			notes = append(notes, name+" is hidden from commands by the sandbox: it holds credentials or Steward's own data")
			break
		}
	}
	return notes
}
