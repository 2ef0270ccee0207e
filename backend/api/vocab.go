package api

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"steward/backend/agent"
	"steward/backend/config"
	"steward/backend/event"
	"steward/backend/exchange"
	"steward/backend/llm"
	"steward/backend/policy"
	"steward/backend/replay"
	"steward/backend/run"
)

// vocabularies are the named string types of the wire, each with its
// values as the package that owns it lists them: in the document, an enum
// wherever the type is used. A named string type on the wire that is not
// here fails the document (newWireSchemas), so none goes undescribed.
func vocabularies() map[reflect.Type]*jsonschema.Schema {
	m := map[reflect.Type]*jsonschema.Schema{}
	var types []event.Type
	for _, p := range event.Payloads() {
		types = append(types, p.Type)
	}
	enum(m, types)
	enum(m, run.Statuses)
	enum(m, event.NodeKinds)
	enum(m, event.NodeStatuses)
	enum(m, event.InteractionKinds)
	enum(m, event.InteractionStatuses)
	enum(m, event.Decisions)
	enum(m, event.DefaultDecisions)
	enum(m, event.FileSources)
	enum(m, event.Risks)
	enum(m, event.Accesses)
	enum(m, event.Effects)
	enum(m, event.SandboxModes)
	enum(m, event.SandboxNetworks)
	enum(m, event.NextKinds)
	enum(m, event.ForkFilesChoices)
	enum(m, event.PlanStatuses)
	enum(m, event.GrantScopes)
	enum(m, event.ArtifactKinds)
	enum(m, event.MCPServerStates)
	enum(m, event.ProjectStates)
	enum(m, event.Roles)
	enumOf[policy.Mode](m, policy.Modes)
	enum(m, agent.Providers)
	enum(m, config.ProviderNames())
	enum(m, config.KeySources)
	enum(m, config.PriceSources)
	enum(m, replay.ToolsModes)
	enumOf[exchange.Format](m, exchange.Formats)
	enum(m, wsInTypes)
	enum(m, wsOutTypes)
	enum(m, llm.ErrorKinds)
	return m
}

// enumOf adds the vocabulary of T from a list kept as strings.
func enumOf[T ~string](m map[reflect.Type]*jsonschema.Schema, values []string) {
	typed := make([]T, len(values))
	for i, v := range values {
		typed[i] = T(v)
	}
	enum(m, typed)
}

// enum adds the vocabulary of T: a string, one of values.
func enum[T ~string](m map[reflect.Type]*jsonschema.Schema, values []T) {
	s := &jsonschema.Schema{Type: "string", Enum: make([]any, len(values))}
	for i, v := range values {
		s.Enum[i] = string(v)
	}
	m[reflect.TypeFor[T]()] = s
}
