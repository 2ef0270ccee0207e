package api

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

var (
	openapiOnce sync.Once
	openapiDoc  []byte
	openapiErr  error
)

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// OpenAPI builds the OpenAPI 3.1 document of the route table, with schemas
// inferred from the wire types, so the document cannot drift from the code
// that serves it.
func (s *Server) OpenAPI() ([]byte, error) {
	openapiOnce.Do(func() {
		opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[json.RawMessage](): {}, // any JSON value
		}}
		schema := func(v any) (*jsonschema.Schema, error) { return jsonschema.ForType(reflect.TypeOf(v), opts) }
		paths := map[string]map[string]any{}
		for _, rt := range s.routes {
			// {name...} (the rest of the path) is {name} to OpenAPI.
			path := strings.ReplaceAll(rt.path, "...}", "}")
			op := map[string]any{"summary": rt.summary, "operationId": operationID(rt)}
			var params []any
			for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
				params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]string{"type": "string"}})
			}
			if params != nil {
				op["parameters"] = params
			}
			if rt.auth {
				op["security"] = []any{map[string]any{"bearer": []string{}}, map[string]any{"session": []string{}}}
			} else {
				op["security"] = []any{}
			}
			if rt.request != nil {
				sch, err := schema(rt.request)
				if err != nil {
					openapiErr = err
					return
				}
				op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": sch}}}
			}
			status := rt.status
			if status == 0 {
				status = http.StatusOK
			}
			resp := map[string]any{"description": http.StatusText(status)}
			if rt.response != nil {
				sch, err := schema(rt.response)
				if err != nil {
					openapiErr = err
					return
				}
				resp["content"] = map[string]any{"application/json": map[string]any{"schema": sch}}
			}
			op["responses"] = map[string]any{
				strconv.Itoa(status): resp,
				"default":            map[string]any{"description": "An error: {\"error\": {\"code\", \"message\"}}", "content": map[string]any{"application/json": map[string]any{"schema": errorSchema}}},
			}
			if paths[path] == nil {
				paths[path] = map[string]any{}
			}
			paths[path][strings.ToLower(rt.method)] = op
		}
		doc := map[string]any{
			"openapi": "3.1.0",
			"info":    map[string]any{"title": "Steward API", "version": "v1", "description": "Local agent workbench. See docs/api.md."},
			"paths":   paths,
			"components": map[string]any{"securitySchemes": map[string]any{
				"bearer":  map[string]any{"type": "http", "scheme": "bearer"},
				"session": map[string]any{"type": "apiKey", "in": "cookie", "name": cookieName},
			}},
		}
		openapiDoc, openapiErr = json.MarshalIndent(doc, "", "  ")
	})
	return openapiDoc, openapiErr
}

var errorSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{"error": map[string]any{
		"type":       "object",
		"properties": map[string]any{"code": map[string]string{"type": "string"}, "message": map[string]string{"type": "string"}},
		"required":   []string{"code", "message"},
	}},
	"required": []string{"error"},
}

func operationID(rt route) string {
	p := pathParam.ReplaceAllString(strings.TrimPrefix(strings.ReplaceAll(rt.path, "...}", "}"), "/api/v1"), "by_$1")
	p = strings.NewReplacer("/", "_", ".", "_").Replace(strings.Trim(p, "/"))
	return strings.ToLower(rt.method) + "_" + p
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request) error {
	doc, err := s.OpenAPI()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(doc)
	return err
}
