package mcp

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// varRE matches ${NAME} and ${NAME:-default}, which Claude Code expands in
// its MCP configurations, so that a pasted one keeps its secrets in the
// environment.
var varRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)

// expanded returns s with the variables in its command, args, env, cwd,
// url and headers replaced by their values from getenv, when it reaches
// the server: a variable that is unset and has no default is an error
// naming it and the field.
func (s Server) expanded(name string, getenv func(string) string) (Server, error) {
	var err error
	expand := func(field, v string) string {
		return varRE.ReplaceAllStringFunc(v, func(m string) string {
			sub := varRE.FindStringSubmatch(m)
			if val := getenv(sub[1]); val != "" {
				return val
			}
			if strings.Contains(m, ":-") {
				return sub[2]
			}
			if err == nil {
				err = fmt.Errorf("MCP server %s: %s names ${%s}, which is not set", name, field, sub[1])
			}
			return ""
		})
	}
	out := s
	out.Command = expand("command", s.Command)
	out.Cwd = expand("cwd", s.Cwd)
	out.URL = expand("url", s.URL)
	out.Args = make([]string, len(s.Args))
	for i, a := range s.Args {
		out.Args[i] = expand("args["+strconv.Itoa(i)+"]", a)
	}
	out.Env = expandMap("env", s.Env, expand)
	out.Headers = expandMap("headers", s.Headers, expand)
	return out, err
}

func expandMap(field string, m map[string]string, expand func(field, v string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedNames(m) { // the first error is the same one every time
		out[k] = expand(field+"."+k, m[k])
	}
	return out
}
