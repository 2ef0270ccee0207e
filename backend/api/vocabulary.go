package api

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"steward/backend/event"
	"steward/backend/run"
)

// fieldEnums are the values of the wire's closed string fields, each
// taken from the Go that owns the list (run statuses and commands from
// run, node and interaction vocabularies from event), by type and JSON
// field: a string takes one of them, a list holds them, a map is keyed by
// them. The OpenAPI document declares them as enums, so the TypeScript
// generated from it cannot drift from the server either.
func fieldEnums() map[reflect.Type]map[string][]string {
	caps := append(slices.Clone(run.Commands), CapReplay)
	return map[reflect.Type]map[string][]string{
		reflect.TypeFor[Run]():         {"status": names(run.Statuses), "capabilities": caps, "refusals": run.Commands},
		reflect.TypeFor[Event]():       {"capabilities": caps, "refusals": run.Commands},
		reflect.TypeFor[Interaction](): {"status": names(event.InteractionStatuses), "kind": names(event.InteractionKinds)},
		reflect.TypeFor[GraphNode]():   {"status": names(event.NodeStatuses), "kind": names(event.NodeKinds)},
		reflect.TypeFor[Command]():     {"type": run.Commands},
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

// declareFieldEnums infers the schema of each type of fieldEnums with opts,
// declares its fields' values, and adds it to opts.TypeSchemas, so that
// every schema inferred after it (a list of runs, a node's detail) holds
// the declared one. A field that is not in its type's schema, or of no
// type a vocabulary fits, is an error: a renamed field fails the build of
// the document, not silently its enum.
func declareFieldEnums(opts *jsonschema.ForOptions) error {
	for t, fields := range fieldEnums() {
		sch, err := jsonschema.ForType(t, opts)
		if err != nil {
			return err
		}
		for name, values := range fields {
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
		opts.TypeSchemas[t] = sch
	}
	return nil
}
