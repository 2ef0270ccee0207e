package otlp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// The OTLP/JSON shape of an ExportTraceServiceRequest, written by hand from
// opentelemetry-proto (collector/trace/v1/trace_service.proto,
// trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto)
// instead of pulling in the OpenTelemetry SDK for a few structs.
//
// It follows the OTLP specification's "JSON Protobuf Encoding"
// (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding), which is
// the proto3 JSON mapping with these exceptions and reminders:
//   - keys are the lowerCamelCase field names (traceId, startTimeUnixNano);
//   - traceId, spanId and parentSpanId are hex strings, not base64;
//   - enums (span kind, status code) are integers, never their names;
//   - 64-bit integers (intValue, the *TimeUnixNano fields) are decimal
//     strings, as the proto3 JSON mapping writes int64 and fixed64;
//   - a field at its default value may be left out, so every optional field
//     is omitempty.

// exportRequest is opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.
type exportRequest struct {
	ResourceSpans []resourceSpans `json:"resourceSpans"`
}

type resourceSpans struct {
	Resource   resource     `json:"resource"`
	ScopeSpans []scopeSpans `json:"scopeSpans"`
	SchemaURL  string       `json:"schemaUrl,omitempty"`
}

type resource struct {
	Attributes []keyValue `json:"attributes,omitempty"`
}

type scopeSpans struct {
	Scope     scope  `json:"scope"`
	Spans     []span `json:"spans"`
	SchemaURL string `json:"schemaUrl,omitempty"`
}

// scope is the InstrumentationScope: what produced the spans.
type scope struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type span struct {
	TraceID           string      `json:"traceId"`
	SpanID            string      `json:"spanId"`
	ParentSpanID      string      `json:"parentSpanId,omitempty"`
	Name              string      `json:"name"`
	Kind              int         `json:"kind"`
	StartTimeUnixNano int64String `json:"startTimeUnixNano"`
	EndTimeUnixNano   int64String `json:"endTimeUnixNano"`
	Attributes        []keyValue  `json:"attributes,omitempty"`
	Events            []spanEvent `json:"events,omitempty"`
	Links             []link      `json:"links,omitempty"`
	Status            *status     `json:"status,omitempty"`
}

// Span kinds (Span.SpanKind) and status codes (Status.StatusCode), as the
// integers the JSON encoding requires.
const (
	kindInternal = 1
	kindClient   = 3

	statusError = 2 // UNSET (0) is left out; OK is never set, as semconv's "Recording Errors" asks
)

type spanEvent struct {
	TimeUnixNano int64String `json:"timeUnixNano"`
	Name         string      `json:"name"`
	Attributes   []keyValue  `json:"attributes,omitempty"`
}

type link struct {
	TraceID    string     `json:"traceId"`
	SpanID     string     `json:"spanId"`
	Attributes []keyValue `json:"attributes,omitempty"`
}

type status struct {
	Message string `json:"message,omitempty"`
	Code    int    `json:"code,omitempty"`
}

type keyValue struct {
	Key   string   `json:"key"`
	Value anyValue `json:"value"`
}

// anyValue holds exactly one of its fields; pointers tell "absent" from a
// zero value, so false, 0 and "" survive.
type anyValue struct {
	StringValue *string      `json:"stringValue,omitempty"`
	BoolValue   *bool        `json:"boolValue,omitempty"`
	IntValue    *int64String `json:"intValue,omitempty"`
	DoubleValue *float64     `json:"doubleValue,omitempty"`
	ArrayValue  *arrayValue  `json:"arrayValue,omitempty"`
}

type arrayValue struct {
	Values []anyValue `json:"values"`
}

// int64String is an int64 written as a decimal JSON string, as the proto3
// JSON mapping writes 64-bit integers (JavaScript numbers lose precision past
// 2^53). It reads both forms: the mapping tells parsers to accept a number too.
type int64String int64

func (n int64String) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, strconv.FormatInt(int64(n), 10)), nil
}

func (n *int64String) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("not a 64-bit integer: %s", b)
	}
	*n = int64String(v)
	return nil
}

// strAttr takes a vocabulary of the log (event.NodeKind...) as it takes a string.
func strAttr[S ~string](k string, v S) keyValue {
	s := string(v)
	return keyValue{Key: k, Value: anyValue{StringValue: &s}}
}

func intAttr(k string, v int64) keyValue {
	n := int64String(v)
	return keyValue{Key: k, Value: anyValue{IntValue: &n}}
}

func doubleAttr(k string, v float64) keyValue {
	return keyValue{Key: k, Value: anyValue{DoubleValue: &v}}
}

func boolAttr(k string, v bool) keyValue { return keyValue{Key: k, Value: anyValue{BoolValue: &v}} }

func strsAttr(k string, vs []string) keyValue {
	a := &arrayValue{Values: make([]anyValue, len(vs))}
	for i := range vs {
		a.Values[i] = anyValue{StringValue: &vs[i]}
	}
	return keyValue{Key: k, Value: anyValue{ArrayValue: a}}
}

// jsonAttr records a structured value (messages, tool arguments) as its JSON
// text. The GenAI conventions allow a JSON string on spans; most backends
// (Langfuse, Phoenix, Jaeger's UI) show or parse that form, while few read
// kvlist values.
func jsonAttr(k string, v any) (keyValue, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return keyValue{}, fmt.Errorf("encode %s: %w", k, err)
	}
	return strAttr(k, string(b)), nil
}
