package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type openapiDoc struct {
	OpenAPI string `json:"openapi"`
	Paths   map[string]map[string]struct {
		OperationID string           `json:"operationId"`
		Security    []map[string]any `json:"security"`
		Responses   map[string]any   `json:"responses"`
		Parameters  []struct {
			Name, In string
			Required bool
		} `json:"parameters"`
		RequestBody *struct {
			Content map[string]struct {
				Schema map[string]any `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
	} `json:"paths"`
}

var (
	contractRoute = regexp.MustCompile("^\\| `(GET|POST|PUT|DELETE|PATCH) (/[^`?]*)")
	param         = regexp.MustCompile(`\{[a-z_]+\}`)
)

// contractRoutes reads the route table of docs/api.md, the contract.
func contractRoutes(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if m := contractRoute.FindStringSubmatch(line); m != nil {
			out = append(out, m[1]+" "+m[2])
		}
	}
	if len(out) < 10 {
		t.Fatalf("found only %d routes in docs/api.md: %q", len(out), out)
	}
	slices.Sort(out)
	return out
}

// notRouted reports whether r is the answer of no route: the JSON 405
// method_not_allowed (with Allow), or the JSON 404 "no route" for unknown
// /api paths. A handler's own not_found (an unknown id) is a routed answer.
func notRouted(r resp) bool {
	code, msg, ok := errorOf(r)
	if r.status == http.StatusMethodNotAllowed {
		return ok && code == "method_not_allowed"
	}
	return r.status == http.StatusNotFound && ok && code == "not_found" && strings.HasPrefix(msg, "no route")
}

func TestOpenAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)

	r := e.do("GET", "/api/v1/openapi.json", nil)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET openapi.json = %d %s", r.status, r.header.Get("Content-Type"))
	}
	var doc openapiDoc
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}

	var inDoc []string
	opIDs := map[string]bool{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			route := strings.ToUpper(method) + " " + path
			inDoc = append(inDoc, route)
			if op.OperationID == "" || opIDs[op.OperationID] {
				t.Errorf("%s: operationId %q is empty or not unique", route, op.OperationID)
			}
			opIDs[op.OperationID] = true
			if _, ok := op.Responses["default"]; !ok || len(op.Responses) < 2 {
				t.Errorf("%s: responses %v, want a success and a default", route, op.Responses)
			}
			public := path == "/healthz" || path == "/readyz"
			if public != (len(op.Security) == 0) {
				t.Errorf("%s: security %v, but public = %v", route, op.Security, public)
			}
			var params []string
			for _, p := range op.Parameters {
				if p.In == "query" {
					continue // TestOpenAPIDeclaresTheWire
				}
				if p.In != "path" || !p.Required {
					t.Errorf("%s: parameter %+v", route, p)
				}
				params = append(params, "{"+p.Name+"}")
			}
			if diff := cmp.Diff(param.FindAllString(path, -1), params); diff != "" {
				t.Errorf("%s: path parameters (-path +doc):\n%s", route, diff)
			}
			if method == "post" || method == "put" {
				if path != "/api/v1/runs/{id}/commands" && path != "/api/v1/interactions/{id}/answer" &&
					path != "/api/v1/runs" && path != "/api/v1/agents" && path != "/api/v1/agents/{id}" {
					continue
				}
				if op.RequestBody == nil || op.RequestBody.Content["application/json"].Schema == nil {
					t.Errorf("%s: no JSON request body schema", route)
				}
			}
		}
	}
	slices.Sort(inDoc)

	// The document describes exactly the routes of the contract.
	if diff := cmp.Diff(contractRoutes(t), inDoc); diff != "" {
		t.Errorf("routes (-docs/api.md +openapi.json):\n%s", diff)
	}

	methods := []string{"GET", "POST", "PUT", "DELETE", "PATCH"}
	for path, ops := range doc.Paths {
		concrete := param.ReplaceAllString(path, "x")
		for _, m := range methods {
			_, documented := ops[strings.ToLower(m)]
			t.Run(m+" "+path, func(t *testing.T) {
				r := e.with(t).do(m, concrete, nil)
				if documented && notRouted(r) {
					t.Errorf("documented but not routed: %d %s", r.status, r.body)
				}
				if !documented && !notRouted(r) {
					t.Errorf("routed but not documented: %d %s", r.status, r.body)
				}
			})
		}
	}

	// Paths outside the document are not served.
	for _, tt := range []struct{ method, path string }{
		{"GET", "/api/v1/nope"},
		{"GET", "/api/v2/runs"},
		{"GET", "/api/v1/runs/x/nodes"},
		{"POST", "/api/v1/nope"},
		{"GET", "/api/v1"},
	} {
		if r := e.do(tt.method, tt.path, nil); !notRouted(r) {
			t.Errorf("%s %s = %d %s, want no route", tt.method, tt.path, r.status, r.body)
		}
	}
	wantError(t, e.do("GET", "/api/v1/nope", nil), http.StatusNotFound, "not_found")
}
