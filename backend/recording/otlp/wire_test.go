package otlp

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// The OTLP/JSON shape, written from opentelemetry-proto: the keys each kind
// of object may have (lowerCamelCase, as the JSON encoding requires).
var otlpKeys = map[string][]string{
	"request":       {"resourceSpans"},
	"resourceSpans": {"resource", "scopeSpans", "schemaUrl"},
	"resource":      {"attributes", "droppedAttributesCount"},
	"scopeSpans":    {"scope", "spans", "schemaUrl"},
	"scope":         {"name", "version", "attributes", "droppedAttributesCount"},
	"span": {"traceId", "spanId", "traceState", "parentSpanId", "flags", "name", "kind", "startTimeUnixNano", "endTimeUnixNano",
		"attributes", "droppedAttributesCount", "events", "droppedEventsCount", "links", "droppedLinksCount", "status"},
	"event":    {"timeUnixNano", "name", "attributes", "droppedAttributesCount"},
	"link":     {"traceId", "spanId", "traceState", "attributes", "droppedAttributesCount", "flags"},
	"status":   {"message", "code"},
	"keyValue": {"key", "value"},
	"anyValue": {"stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"},
}

var (
	hex32   = regexp.MustCompile(`^[0-9a-f]{32}$`)
	hex16   = regexp.MustCompile(`^[0-9a-f]{16}$`)
	decimal = regexp.MustCompile(`^-?[0-9]+$`)
)

// checker walks a decoded OTLP/JSON document and reports every departure
// from the encoding rules.
type checker struct {
	t    *testing.T
	seen map[string]int // objects checked, by kind
}

func (c *checker) object(kind, path string, v any) map[string]any {
	c.t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		c.t.Errorf("%s: want a %s object, got %T", path, kind, v)
		return nil
	}
	c.seen[kind]++
	allowed := map[string]bool{}
	for _, k := range otlpKeys[kind] {
		allowed[k] = true
	}
	for k := range m {
		if !allowed[k] {
			c.t.Errorf("%s: key %q is not a field of %s in the OTLP JSON encoding", path, k, kind)
		}
	}
	return m
}

func (c *checker) list(path string, v any, each func(string, any)) {
	c.t.Helper()
	if v == nil {
		return
	}
	a, ok := v.([]any)
	if !ok {
		c.t.Errorf("%s: want an array, got %T", path, v)
		return
	}
	for i, x := range a {
		each(path+"["+strconv.Itoa(i)+"]", x)
	}
}

func (c *checker) str(path string, v any, re *regexp.Regexp) {
	c.t.Helper()
	s, ok := v.(string)
	if !ok || (re != nil && !re.MatchString(s)) {
		c.t.Errorf("%s = %#v, want a string matching %v", path, v, re)
	}
}

func (c *checker) request(v any) {
	m := c.object("request", "$", v)
	c.list("$.resourceSpans", m["resourceSpans"], func(p string, v any) {
		rs := c.object("resourceSpans", p, v)
		c.attributes(p+".resource.attributes", c.object("resource", p+".resource", rs["resource"])["attributes"])
		c.list(p+".scopeSpans", rs["scopeSpans"], func(p string, v any) {
			ss := c.object("scopeSpans", p, v)
			c.object("scope", p+".scope", ss["scope"])
			c.list(p+".spans", ss["spans"], c.span)
		})
	})
}

func (c *checker) span(p string, v any) {
	s := c.object("span", p, v)
	c.str(p+".traceId", s["traceId"], hex32)
	c.str(p+".spanId", s["spanId"], hex16)
	if s["parentSpanId"] != nil {
		c.str(p+".parentSpanId", s["parentSpanId"], hex16)
	}
	c.str(p+".startTimeUnixNano", s["startTimeUnixNano"], decimal)
	c.str(p+".endTimeUnixNano", s["endTimeUnixNano"], decimal)
	if k, ok := s["kind"].(float64); !ok || k < 0 || k > 5 {
		c.t.Errorf("%s.kind = %#v, want the enum's integer", p, s["kind"])
	}
	c.attributes(p+".attributes", s["attributes"])
	c.list(p+".events", s["events"], func(p string, v any) {
		e := c.object("event", p, v)
		c.str(p+".timeUnixNano", e["timeUnixNano"], decimal)
		c.attributes(p+".attributes", e["attributes"])
	})
	c.list(p+".links", s["links"], func(p string, v any) {
		l := c.object("link", p, v)
		c.str(p+".traceId", l["traceId"], hex32)
		c.str(p+".spanId", l["spanId"], hex16)
		c.attributes(p+".attributes", l["attributes"])
	})
	if s["status"] != nil {
		st := c.object("status", p+".status", s["status"])
		if code, ok := st["code"].(float64); !ok || code != 2 {
			c.t.Errorf("%s.status.code = %#v, want 2 (ERROR) as an integer", p, st["code"])
		}
	}
}

func (c *checker) attributes(p string, v any) {
	c.list(p, v, func(p string, v any) {
		kv := c.object("keyValue", p, v)
		c.str(p+".key", kv["key"], nil)
		c.value(p+".value", kv["value"])
	})
}

func (c *checker) value(p string, v any) {
	m := c.object("anyValue", p, v)
	if len(m) != 1 {
		c.t.Errorf("%s: an AnyValue holds exactly one field, got %v", p, m)
	}
	for k, x := range m {
		switch k {
		case "stringValue":
			c.str(p+".stringValue", x, nil)
		case "intValue":
			c.str(p+".intValue", x, decimal) // int64: a decimal string
		case "doubleValue":
			if _, ok := x.(float64); !ok {
				c.t.Errorf("%s.doubleValue = %#v, want a number", p, x)
			}
		case "boolValue":
			if _, ok := x.(bool); !ok {
				c.t.Errorf("%s.boolValue = %#v, want a boolean", p, x)
			}
		case "arrayValue":
			c.list(p+".arrayValue.values", x.(map[string]any)["values"], c.value)
		}
	}
}

func TestTracesJSONFollowsTheOTLPEncoding(t *testing.T) {
	t.Parallel()
	scripted, _ := scriptedRun()
	forked, _, _ := forkedRun()
	c := &checker{t: t, seen: map[string]int{}}
	for _, content := range []bool{false, true} {
		for run, events := range map[string][]event.Event{"run_1": scripted, "run_2": forked} {
			out, err := Traces(run, events, Options{StewardVersion: "0.9.0", IncludeContent: content})
			if err != nil {
				t.Fatal(err)
			}
			var doc any
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			c.request(doc)
		}
	}
	// Every kind of object was met, so the walk checked something.
	var missing []string
	for k := range otlpKeys {
		if c.seen[k] == 0 {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the scripted runs have no %v to check", missing)
	}
}

// TestTracesGolden pins the whole output for the scripted run (refresh with
// go test -update after a deliberate change), and checks that it reads back
// into the wire structs and writes out byte for byte the same.
func TestTracesGolden(t *testing.T) {
	t.Parallel()
	events, _ := scriptedRun()
	out, err := Traces("run_1", events, Options{StewardVersion: "0.9.0", IncludeContent: true})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Traces("run_1", events, Options{StewardVersion: "0.9.0", IncludeContent: true})
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("two exports of the same log differ (err %v)", err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	golden := filepath.Join("testdata", "scripted_run.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), pretty.String()); d != "" {
		t.Errorf("traces differ from %s (-want +got):\n%s", golden, d)
	}

	var req exportRequest
	if err := json.Unmarshal(want, &req); err != nil {
		t.Fatal(err)
	}
	back, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, out) {
		t.Errorf("decoding the golden file and encoding it again changed it:\n%s\nwant\n%s", back, out)
	}
}

func TestInt64StringReadsBothForms(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{`"1760000000000000000"`: 1760000000000000000, `42`: 42, `"-7"`: -7} {
		var n int64String
		if err := json.Unmarshal([]byte(in), &n); err != nil || int64(n) != want {
			t.Errorf("%s: got %d, %v; want %d", in, n, err, want)
		}
	}
	var n int64String
	if err := json.Unmarshal([]byte(`"1.5"`), &n); err == nil {
		t.Error(`"1.5" read as an int64`)
	}
	b, _ := json.Marshal(int64String(9007199254740993)) // 2^53+1: a JSON number would lose it
	if string(b) != `"9007199254740993"` {
		t.Errorf("marshal = %s", b)
	}
}
