package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"steward/backend/api"
)

// wireCheck holds the document's schemas, resolved for validation: every
// answer the tests of this package read (env.do) and every WebSocket
// message (recv) is checked against what the document says of it, and so
// is the payload of every event in them. The document is the UI's wire
// types (schema.d.ts is generated from it), so this is what keeps them
// exact: a required field the server leaves out, a null list, a value
// outside a vocabulary or a field the document does not name fails the
// test that caused it.
type wireCheck struct {
	mux      *http.ServeMux               // the document's routes, to find an answer's
	doc      map[string]any               // the document, as JSON
	defs     map[string]any               // components.schemas as $defs
	resolved sync.Map                     // component name -> *jsonschema.Resolved
	answers  map[string]map[string]string // "METHOD path" -> status -> component
}

var (
	wireOnce sync.Once
	wire     *wireCheck
	wireErr  error
)

func theWire() (*wireCheck, error) {
	wireOnce.Do(func() { wire, wireErr = newWireCheck() })
	return wire, wireErr
}

func newWireCheck() (*wireCheck, error) {
	b, err := api.New(api.Config{}).OpenAPI()
	if err != nil {
		return nil, err
	}
	// Refs into components become refs into $defs, which jsonschema-go
	// resolves within one schema.
	b = []byte(strings.ReplaceAll(string(b), `"#/components/schemas/`, `"#/$defs/`))
	w := &wireCheck{mux: http.NewServeMux(), answers: map[string]map[string]string{}}
	if err := json.Unmarshal(b, &w.doc); err != nil {
		return nil, err
	}
	w.defs = w.doc["components"].(map[string]any)["schemas"].(map[string]any)
	for path, ops := range w.doc["paths"].(map[string]any) {
		for method, op := range ops.(map[string]any) {
			route := strings.ToUpper(method) + " " + path
			w.mux.HandleFunc(route, func(http.ResponseWriter, *http.Request) {})
			w.answers[route] = map[string]string{}
			for status, r := range op.(map[string]any)["responses"].(map[string]any) {
				ref, _ := dig(r, "content", "application/json", "schema", "$ref").(string)
				w.answers[route][status] = strings.TrimPrefix(ref, "#/$defs/")
			}
		}
	}
	return w, nil
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// schema is component name, resolved.
func (w *wireCheck) schema(name string) (*jsonschema.Resolved, error) {
	if r, ok := w.resolved.Load(name); ok {
		return r.(*jsonschema.Resolved), nil
	}
	b, err := json.Marshal(map[string]any{"$ref": "#/$defs/" + name, "$defs": w.defs})
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", name, err)
	}
	w.resolved.Store(name, r)
	return r, nil
}

// validate checks body against component name, and each event in it
// against its type's payload.
func (w *wireCheck) validate(name string, body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	r, err := w.schema(name)
	if err != nil {
		return err
	}
	if err := r.Validate(v); err != nil {
		return fmt.Errorf("not a %s: %v", name, err)
	}
	return w.events(v)
}

// events checks the payload of every event in v (an object with a type,
// a ts and data) against EventPayloads.
func (w *wireCheck) events(v any) error {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := w.events(e); err != nil {
				return err
			}
		}
	case map[string]any:
		typ, isEvent := x["type"].(string)
		_, hasTS := x["ts"]
		_, hasData := x["data"]
		if isEvent && hasTS && hasData {
			payload, ok := dig(w.defs, "EventPayloads", "properties", typ, "$ref").(string)
			if !ok {
				return fmt.Errorf("event type %q has no payload in the document", typ)
			}
			name := strings.TrimPrefix(payload, "#/$defs/")
			r, err := w.schema(name)
			if err != nil {
				return err
			}
			if err := r.Validate(x["data"]); err != nil {
				return fmt.Errorf("event %v (%s): data is not a %s: %v", x["seq"], typ, name, err)
			}
			return nil
		}
		for _, e := range x {
			if err := w.events(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkAnswer fails t when the answer to req is not what the document says
// of its route and status. Answers of no documented route, or of a status
// or media type without a JSON schema, are not checked.
func checkAnswer(t *testing.T, req *http.Request, r resp) {
	t.Helper()
	if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") || len(r.body) == 0 {
		return
	}
	w, err := theWire()
	if err != nil {
		t.Fatalf("the document: %v", err)
	}
	_, pattern := w.mux.Handler(req)
	answers, ok := w.answers[pattern]
	if !ok {
		return
	}
	name := answers[strconv.Itoa(r.status)]
	if name == "" && r.status >= 400 {
		name = answers["default"]
	}
	if name == "" {
		return
	}
	if err := w.validate(name, r.body); err != nil {
		t.Errorf("%s %s answered %d, which the document does not describe: %v\n%s", req.Method, req.URL.Path, r.status, err, r.body)
	}
}

// checkMessage fails t when a WebSocket message is not a WsOut.
func checkMessage(t *testing.T, b []byte) {
	t.Helper()
	w, err := theWire()
	if err != nil {
		t.Fatalf("the document: %v", err)
	}
	if err := w.validate("WsOut", b); err != nil {
		t.Errorf("a WebSocket message the document does not describe: %v\n%s", err, b)
	}
}

// TestWireCheckRefuses: the check is not vacuous: what the server must not
// send fails it.
func TestWireCheckRefuses(t *testing.T) {
	t.Parallel()
	w, err := theWire()
	if err != nil {
		t.Fatal(err)
	}
	node := `{"id":"n1","kind":"llm","status":"running","label":"m","after":[],"started_at":1,"duration_ms":0}`
	for _, tt := range []struct {
		name, schema, body string
		ok                 bool
	}{
		{"a graph", "Graph", `{"nodes":[` + node + `],"edges":[{"from":"a","to":"n1","kind":"after"}]}`, true},
		{"a null list", "Graph", `{"nodes":null,"edges":[]}`, false},
		{"a required field left out", "Graph", `{"nodes":[{"id":"n1","kind":"llm","status":"running","label":"m","after":[],"started_at":1}],"edges":[]}`, false},
		{"a status of no vocabulary", "Graph", `{"nodes":[` + strings.Replace(node, `"running"`, `"paused"`, 1) + `],"edges":[]}`, false},
		{"a field the document does not name", "Graph", `{"nodes":[],"edges":[],"more":1}`, false},
		{"an event", "EventsBody", `{"events":[{"run_id":"r","seq":1,"ts":1,"type":"llm.delta","node_id":"n1","data":{"text":"hi"}}],"next_after":1,"more":false}`, true},
		{"an event's payload of another type", "EventsBody", `{"events":[{"run_id":"r","seq":1,"ts":1,"type":"llm.delta","data":{"text":1}}],"next_after":1,"more":false}`, false},
		{"an event type of no version", "EventsBody", `{"events":[{"run_id":"r","seq":1,"ts":1,"type":"run.teleported","data":{}}],"next_after":1,"more":false}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := w.validate(tt.schema, []byte(tt.body))
			if (err == nil) != tt.ok {
				t.Errorf("validate(%s, %s) = %v, want ok %v", tt.schema, tt.body, err, tt.ok)
			}
		})
	}
}
