package api

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"slices"
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
		wire, schemas, err := documentSchemas(s.routes)
		if err != nil {
			openapiErr = err
			return
		}
		schema := func(v any) (*jsonschema.Schema, error) { return wire.schemaOf(reflect.TypeOf(v)) }
		paths := map[string]map[string]any{}
		for _, rt := range s.routes {
			// {name...} (the rest of the path) is {name} to OpenAPI.
			path := strings.ReplaceAll(rt.path, "...}", "}")
			op := map[string]any{"summary": rt.summary, "operationId": operationID(rt)}
			var params []any
			for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
				params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]string{"type": "string"}})
			}
			for _, q := range rt.query {
				params = append(params, q.schema())
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
			if rt.body != "" { // a file as it is: any bytes (OpenAPI 3.1 §4.8.14.3)
				op["requestBody"] = map[string]any{"required": true, "description": rt.summary, "content": map[string]any{rt.body: map[string]any{}}}
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
			responses := map[string]any{
				strconv.Itoa(status): resp,
				"default":            errorResponse("An error: {\"error\": {\"code\", \"message\"}}"),
			}
			for _, code := range errorStatuses(rt) {
				responses[strconv.Itoa(code)] = errorResponse(http.StatusText(code))
			}
			op["responses"] = responses
			if paths[path] == nil {
				paths[path] = map[string]any{}
			}
			paths[path][strings.ToLower(rt.method)] = op
		}
		doc := map[string]any{
			"openapi": "3.1.0",
			"info":    map[string]any{"title": "Steward API", "version": "v1", "description": "Local agent workbench. See docs/api.md."},
			"paths":   paths,
			"components": map[string]any{
				"securitySchemes": map[string]any{
					"bearer":  map[string]any{"type": "http", "scheme": "bearer"},
					"session": map[string]any{"type": "apiKey", "in": "cookie", "name": cookieName},
				},
				"schemas": schemas,
			},
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

// errorResponse is an error answer in the document: the error schema.
func errorResponse(description string) map[string]any {
	return map[string]any{"description": description,
		"content": map[string]any{"application/json": map[string]any{"schema": map[string]string{"$ref": "#/components/schemas/Error"}}}}
}

// errorStatuses are the error answers of rt, as the server gives them: 400
// from every route (a query parameter it does not take is refused), 403
// from every route (the Host and Origin checks), 401 behind the token, 404
// with an id in the path, 413 with a request body, and the route's own.
func errorStatuses(rt route) []int {
	out := []int{http.StatusBadRequest, http.StatusForbidden}
	if rt.auth {
		out = append(out, http.StatusUnauthorized)
	}
	if strings.Contains(rt.path, "{") {
		out = append(out, http.StatusNotFound)
	}
	if rt.request != nil || rt.body != "" {
		out = append(out, http.StatusRequestEntityTooLarge)
	}
	out = append(out, rt.errors...)
	slices.Sort(out)
	return slices.Compact(out)
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
