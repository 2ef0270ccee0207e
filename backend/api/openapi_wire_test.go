package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// contractQuery reads the query parameters of each route of docs/api.md's
// table (`GET /api/v1/runs?status=&agent=` names status and agent).
func contractQuery(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile("^\\| `(GET|POST|PUT|DELETE|PATCH) (/[^`?]*)(\\?[^`]*)?`")
	out := map[string][]string{}
	for _, l := range strings.Split(string(b), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var names []string
		for _, kv := range strings.Split(strings.TrimPrefix(m[3], "?"), "&") {
			if name, _, _ := strings.Cut(kv, "="); name != "" {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		out[m[1]+" "+m[2]] = names
	}
	return out
}

// wireDoc is what this test reads of the OpenAPI document.
type wireDoc struct {
	Paths map[string]map[string]struct {
		Parameters []struct {
			Name, In string
			Required bool
			Schema   map[string]any
		} `json:"parameters"`
		RequestBody *struct {
			Content map[string]json.RawMessage `json:"content"`
		} `json:"requestBody"`
		Responses map[string]struct {
			Content map[string]struct {
				Schema map[string]any `json:"schema"`
			} `json:"content"`
		} `json:"responses"`
	} `json:"paths"`
	Components struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	} `json:"components"`
}

// TestOpenAPIDeclaresTheWire: the document declares every query parameter
// of every route as docs/api.md lists them, the body of an import, and each
// error status a route answers, with the error schema; and the server takes
// exactly the query parameters it declares.
func TestOpenAPIDeclaresTheWire(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var doc wireDoc
	e.call("GET", "/api/v1/openapi.json", nil, http.StatusOK, &doc)

	var errSchema any
	if err := json.Unmarshal(doc.Components.Schemas["Error"], &errSchema); err != nil {
		t.Errorf("components.schemas.Error: %v", err)
	}
	wantErr := map[string]any{"type": "object", "required": []any{"error"}, "properties": map[string]any{"error": map[string]any{
		"type": "object", "required": []any{"code", "message"},
		"properties": map[string]any{"code": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"}}}}}
	if diff := cmp.Diff(wantErr, errSchema); diff != "" {
		t.Errorf("the Error schema (-want +got):\n%s", diff)
	}

	contract := contractQuery(t)
	total := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			route := strings.ToUpper(method) + " " + path
			var query []string
			for _, p := range op.Parameters {
				if p.In == "query" {
					query = append(query, p.Name)
					if p.Required || p.Schema == nil {
						t.Errorf("%s: query parameter %s: required %v, schema %v", route, p.Name, p.Required, p.Schema)
					}
				}
			}
			slices.Sort(query)
			total += len(query)
			if diff := cmp.Diff(contract[route], query); diff != "" {
				t.Errorf("%s: query parameters (-docs/api.md +openapi.json):\n%s", route, diff)
			}
			for status, r := range op.Responses {
				if n, _ := strconv.Atoi(status); (n >= 400 || status == "default") && r.Content["application/json"].Schema["$ref"] != "#/components/schemas/Error" {
					t.Errorf("%s: the %s answer is not the error schema: %+v", route, status, r)
				}
			}
		}
	}
	if total < 10 {
		t.Errorf("the document declares %d query parameters, want the ten of docs/api.md at least", total)
	}
	if rb := doc.Paths["/api/v1/recordings"]["post"].RequestBody; rb == nil || rb.Content["application/octet-stream"] == nil {
		t.Errorf("POST /api/v1/recordings: request body %+v, want the file as application/octet-stream", rb)
	}

	// What each route answers to the requests of this test is declared, and
	// a query parameter it does not declare is refused, naming it.
	for path, ops := range doc.Paths {
		concrete := param.ReplaceAllString(path, "x")
		for method, op := range ops {
			m := strings.ToUpper(method)
			t.Run(m+" "+path, func(t *testing.T) {
				e := e.with(t)
				declared := func(what string, r resp) {
					t.Helper()
					if r.status < 400 {
						return
					}
					if _, ok := op.Responses[strconv.Itoa(r.status)]; !ok && r.status < 500 {
						t.Errorf("%s: answered %d, which the document does not declare (%v): %s", what, r.status, keys(op.Responses), r.body)
					}
					if _, _, ok := errorOf(r); !ok && r.header.Get("Content-Type") == "application/json" {
						t.Errorf("%s: answered %d with no error body: %s", what, r.status, r.body)
					}
				}
				declared("as is", e.do(m, concrete, nil))
				r := e.do(m, concrete+"?zzz=1", nil)
				if code, msg, ok := errorOf(r); r.status != http.StatusBadRequest || !ok || code != "invalid" || !strings.Contains(msg, `"zzz"`) {
					t.Errorf("an undeclared query parameter: %d %s", r.status, r.body)
				}
				declared("an undeclared query parameter", r)
				var q []string
				for _, p := range op.Parameters {
					if p.In == "query" {
						q = append(q, p.Name+"=")
					}
				}
				if len(q) > 0 {
					r := e.do(m, concrete+"?"+strings.Join(q, "&"), nil)
					if _, msg, _ := errorOf(r); strings.Contains(msg, "query parameter") {
						t.Errorf("its own query parameters were refused: %d %s", r.status, r.body)
					}
					declared("its own query parameters", r)
					if r := e.do(m, concrete+"?"+q[0]+"&"+q[0], nil); r.status != http.StatusBadRequest {
						t.Errorf("a query parameter given twice: %d %s", r.status, r.body)
					}
				}
				if path != "/healthz" && path != "/readyz" {
					declared("without the token", e.do(m, concrete, nil, noAuth))
				}
				if op.RequestBody != nil {
					declared("a body that is no JSON", e.do(m, concrete, "{"))
				}
			})
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
