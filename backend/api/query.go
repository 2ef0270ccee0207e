package api

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/run"
)

// queryParam is one query parameter of a route. The route table declares
// it, the handler reads it through it, and the OpenAPI document describes it
// from it, so the three cannot disagree; and a request that sends a
// parameter its route does not declare is refused (checkQuery), so a
// handler cannot read one the document leaves out.
type queryParam struct {
	name, doc string
	// integer: a whole number from min to max, def when absent or empty.
	integer       bool
	min, max, def int64
	// enum lists the values a string may take; list makes the parameter a
	// comma-separated list of them.
	enum []string
	list bool
}

// The query parameters of the routes.
var (
	qRunStatus    = queryParam{name: "status", doc: "only runs in these statuses, comma-separated", enum: runStatusNames(), list: true}
	qRunAgent     = queryParam{name: "agent", doc: "only runs of this agent (id or name)"}
	qRunText      = queryParam{name: "q", doc: "only runs whose instructions contain this text (any case)"}
	qRunAttention = queryParam{name: "attention", doc: "true: only runs waiting on a person (status waiting, or an approval or question pending)",
		enum: []string{"true", "false"}}
	qRunBefore = queryParam{name: "before", doc: "only the runs after this cursor in the list's order: the next_before of the page before"}
	qRunLimit  = queryParam{name: "limit", doc: "at most this many runs; more says whether there are others", integer: true, min: 1, max: 1000, def: 100}

	qEventsAfter = queryParam{name: "after", doc: "only events with a seq above this one", integer: true, min: 0, max: 1 << 62, def: 0}
	qEventsLimit = queryParam{name: "limit", doc: "at most this many events; more says whether there are others", integer: true, min: 1, max: 5000, def: 500}

	qExportFormat = queryParam{name: "format", doc: "what to export; steward when absent", enum: exchange.Formats}

	qInteractionStatus = queryParam{name: "status", doc: "only interactions in this status", enum: names(event.InteractionStatuses)}
	qInteractionRun    = queryParam{name: "run_id", doc: "only the interactions of this run"}

	qDirsPath = queryParam{name: "path", doc: "an absolute path, ~ or ~/x; empty for the home folder"}

	qProjectWorkspace = queryParam{name: "workspace", doc: "the workspace folder, an absolute path"}
)

func runStatusNames() []string {
	out := make([]string, len(run.Statuses))
	for i, st := range run.Statuses {
		out[i] = string(st)
	}
	return out
}

// get returns the parameter's value as sent ("" when absent).
func (p queryParam) get(r *http.Request) string { return r.URL.Query().Get(p.name) }

// value returns a string parameter, refusing one that is not in its enum.
func (p queryParam) value(r *http.Request) (string, error) {
	v := p.get(r)
	if v != "" && len(p.enum) > 0 && !slices.Contains(p.enum, v) {
		return "", errorf(http.StatusBadRequest, CodeInvalid, p.name+" "+strconv.Quote(v)+" is not one of "+strings.Join(p.enum, ", "))
	}
	return v, nil
}

// values returns a list parameter's values, each checked against the enum.
func (p queryParam) values(r *http.Request) ([]string, error) {
	v := p.get(r)
	if v == "" {
		return nil, nil
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		if len(p.enum) > 0 && !slices.Contains(p.enum, s) {
			return nil, errorf(http.StatusBadRequest, CodeInvalid, p.name+" "+strconv.Quote(s)+" is not one of "+strings.Join(p.enum, ", "))
		}
		out = append(out, s)
	}
	return out, nil
}

// int returns an integer parameter, its default when absent or empty.
func (p queryParam) int(r *http.Request) (int64, error) {
	return intParam(p.get(r), p.name, p.def, p.min, p.max)
}

// schema is the parameter's OpenAPI description.
func (p queryParam) schema() map[string]any {
	out := map[string]any{"name": p.name, "in": "query", "required": false, "description": p.doc}
	var sch map[string]any
	switch {
	case p.integer:
		sch = map[string]any{"type": "integer", "minimum": p.min, "maximum": p.max, "default": p.def}
	case p.list:
		sch = map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": p.enum}}
		out["style"], out["explode"] = "form", false // status=a,b
	default:
		sch = map[string]any{"type": "string"}
		if len(p.enum) > 0 {
			sch["enum"] = p.enum
		}
	}
	out["schema"] = sch
	return out
}

// checkQuery refuses a request to rt with a query parameter rt does not
// declare, or one given twice, naming it and what rt takes.
func (s *Server) checkQuery(rt route, h http.Handler) http.Handler {
	names := make([]string, len(rt.query))
	for i, p := range rt.query {
		names[i] = p.name
	}
	takes := "takes no query parameters"
	if len(names) > 0 {
		takes = "takes " + strings.Join(names, ", ")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for name, vs := range r.URL.Query() {
			msg := ""
			switch {
			case !slices.Contains(names, name):
				msg = "unknown query parameter " + strconv.Quote(name) + ": " + rt.method + " " + rt.path + " " + takes
			case len(vs) > 1:
				msg = "query parameter " + strconv.Quote(name) + " is given " + strconv.Itoa(len(vs)) + " times; give it once"
			}
			if msg != "" {
				s.fail(w, r, errorf(http.StatusBadRequest, CodeInvalid, msg))
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}
