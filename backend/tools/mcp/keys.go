package mcp

import (
	"bytes"
	"encoding/json"

	"steward/backend/tool"
)

var _ tool.Keyer = (*remoteTool)(nil)

// key is the argument Keys declares for the server's tool named remote:
// its own entry, else the "*" one.
func (s Server) key(remote string) string {
	if k, ok := s.Keys[remote]; ok {
		return k
	}
	return s.Keys["*"]
}

// Key implements tool.Keyer for a tool whose server declares a key
// argument (Server.Keys): the argument's value, a string as it is and
// anything else as its JSON; "" when the call does not give it, which
// matches no rule but "*". Without a declared key the arguments decide.
func (t *remoteTool) Key(env tool.Env, args json.RawMessage) (string, bool) {
	if t.key == "" {
		return "", false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return "", true
	}
	v, ok := obj[t.key]
	if !ok {
		return "", true
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, true
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return string(v), true
	}
	return buf.String(), true
}
