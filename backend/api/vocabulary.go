package api

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"steward/backend/run"
)

// fieldEnums are the values of the wire's closed string fields that are
// not of a named type with a vocabulary (vocab.go): the commands, kept as
// strings by run, and what a run can do (the commands and replay). By type
// and JSON field: a string takes one of them, a list holds them, a map is
// keyed by them. The OpenAPI document declares them as enums, so the
// TypeScript generated from it cannot drift from the server either.
func fieldEnums() map[reflect.Type]map[string][]string {
	caps := append(slices.Clone(run.Commands), CapReplay)
	return map[reflect.Type]map[string][]string{
		reflect.TypeFor[Run]():     {"capabilities": caps, "refusals": run.Commands},
		reflect.TypeFor[Event]():   {"capabilities": caps, "refusals": run.Commands},
		reflect.TypeFor[Command](): {"type": run.Commands},
	}
}

// names are a vocabulary's values as strings.
func names[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// declareFields declares in sch, the schema of t, the values of t's fields
// in fieldEnums. A field that is not in the schema, or of no type a
// vocabulary fits, is an error: a renamed field fails the build of the
// document, not silently its enum.
func declareFields(t reflect.Type, sch *jsonschema.Schema) error {
	for name, values := range fieldEnums()[t] {
		p := sch.Properties[name]
		if p == nil {
			return fmt.Errorf("openapi: %s has no field %q", t, name)
		}
		enum := &jsonschema.Schema{Type: "string", Enum: make([]any, len(values))}
		for i, v := range values {
			enum.Enum[i] = v
		}
		switch {
		case p.Type == "string":
			p.Enum = enum.Enum
		case p.Items != nil:
			p.Items = enum
		case p.AdditionalProperties != nil:
			p.PropertyNames = enum
		default:
			return fmt.Errorf("openapi: %s.%s is not a string, a list or a map", t, name)
		}
	}
	return nil
}
