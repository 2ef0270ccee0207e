package api

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steward/backend/event"
)

// A vocabulary nobody listed.
type shade string

type paint struct {
	Shade shade `json:"shade"`
}

// A type whose JSON is not its fields'.
type stamp struct{ unix int64 }

func (s stamp) MarshalJSON() ([]byte, error) { return json.Marshal(s.unix) }

type letter struct {
	Sent stamp `json:"sent"`
}

type usages struct {
	Run   Usage        `json:"run"`
	Call  event.Usage  `json:"call"`
	Maybe *event.Usage `json:"maybe"`
	Later *Usage       `json:"later,omitempty"`
	List  []string     `json:"list"`
	Any   json.RawMessage
}

// TestWireSchemasRules: what the document says of a Go type follows its
// json tags and the rules of wireSchemas, and a named string type without
// a vocabulary is refused, naming where it is.
func TestWireSchemasRules(t *testing.T) {
	t.Parallel()
	if _, err := newWireSchemas([]reflect.Type{reflect.TypeFor[paint]()}); err == nil || !strings.Contains(err.Error(), "api.paint.Shade") || !strings.Contains(err.Error(), "api.shade") {
		t.Errorf("a named string type with no vocabulary: %v, want an error naming api.paint.Shade and its type", err)
	}
	if _, err := newWireSchemas([]reflect.Type{reflect.TypeFor[letter]()}); err == nil || !strings.Contains(err.Error(), "api.letter.Sent") {
		t.Errorf("a type that marshals itself: %v, want an error naming api.letter.Sent", err)
	}

	w, err := newWireSchemas([]reflect.Type{reflect.TypeFor[usages]()})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := w.components()
	if err != nil {
		t.Fatal(err)
	}
	// The api package's Usage keeps its name; event's is told apart.
	if diff := cmp.Diff([]string{"EventUsage", "Usage", "Usages"}, slices.Sorted(maps.Keys(cs))); diff != "" {
		t.Errorf("components (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(cs["Usages"])
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"run":   map[string]any{"$ref": "#/components/schemas/Usage"},
			"call":  map[string]any{"$ref": "#/components/schemas/EventUsage"},
			"maybe": map[string]any{"anyOf": []any{map[string]any{"$ref": "#/components/schemas/EventUsage"}, map[string]any{"type": "null"}}},
			"later": map[string]any{"$ref": "#/components/schemas/Usage"},
			"list":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"Any":   true,
		},
		"required":             []any{"run", "call", "maybe", "list", "Any"},
		"additionalProperties": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the schema of usages (-want +got):\n%s", diff)
	}
}
