package api

import (
	"encoding"
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"steward/backend/event"
)

// wireSchemas are the schemas of the wire types, derived from the Go types
// by reflection over their fields and json tags (jsonschema-go), so that
// the document cannot say other than what the server sends and takes. Each
// named struct type reachable from the route table, the event payloads and
// the WebSocket messages is one component of the document, named for its Go
// type, and every use of it is a $ref; a named string type is a vocabulary
// (vocab.go) and becomes an enum. frontend/src/api/schema.d.ts is generated
// from this document, so these are the UI's wire types too.
//
// What the schemas say, as encoding/json does it: a field without
// omitempty (or omitzero) is required; a pointer without omitempty may be
// null, one with it is absent rather than null; an embedded struct's fields
// are its embedder's; json.RawMessage and any are any JSON value. One rule
// is the server's, not encoding/json's: a list is never null (the server
// sends an empty list as []). The package's tests check every answer and
// WebSocket message they read against the document (wirecheck_test.go).
type wireSchemas struct {
	names map[reflect.Type]string
	order []reflect.Type // by name
	leafs map[reflect.Type]*jsonschema.Schema
}

// componentRef is where the document keeps its components.
const componentRef = "#/components/schemas/"

var (
	rawMessage    = reflect.TypeFor[json.RawMessage]()
	marshaler     = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// newWireSchemas collects the components reachable from roots. A named
// string type with no vocabulary is an error that names the field (every
// such type on the wire is one), and so is a type that marshals itself,
// whose JSON its fields do not tell.
func newWireSchemas(roots []reflect.Type) (*wireSchemas, error) {
	w := &wireSchemas{names: map[reflect.Type]string{}, leafs: vocabularies()}
	w.leafs[rawMessage] = &jsonschema.Schema{}
	var errs []string
	var walk func(t reflect.Type, where string)
	walk = func(t reflect.Type, where string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if _, ok := w.leafs[t]; ok {
			return
		}
		// Its JSON is its own, not its fields': the document cannot say
		// what it is from the type.
		if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) || t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
			errs = append(errs, fmt.Sprintf("%s is of type %s, which marshals itself: give its schema in vocab.go", where, t))
			return
		}
		if t.Kind() == reflect.String && t.Name() != "" && t.PkgPath() != "" {
			errs = append(errs, fmt.Sprintf("%s is of the named string type %s, which has no vocabulary in vocab.go", where, t))
			return
		}
		if t.Kind() != reflect.Struct {
			return
		}
		if t.Name() != "" {
			if _, ok := w.names[t]; ok {
				return
			}
			w.names[t] = ""
			w.order = append(w.order, t)
		}
		for _, f := range wireFields(t) {
			walk(f.Type, t.String()+"."+f.Name)
		}
	}
	for _, t := range roots {
		walk(t, t.String())
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("wire types: %s", strings.Join(errs, "; "))
	}
	w.name()
	return w, nil
}

// wireFields are the fields of struct type t as encoding/json sees them:
// exported, not tagged "-", and an untagged embedded struct's fields in
// place of the struct itself.
func wireFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(t) {
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && embedsStruct(f) {
			continue // its fields are visible here
		}
		if !f.IsExported() {
			continue
		}
		out = append(out, f)
	}
	return out
}

// embedsStruct reports whether f is an embedded struct whose fields
// encoding/json promotes (it has no name of its own in a json tag).
func embedsStruct(f reflect.StructField) bool {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return f.Anonymous && name == "" && t.Kind() == reflect.Struct
}

// name gives each component its Go type's name, exported. Two types of one
// name are told apart by their package's: the api package's keeps the bare
// name (it is the wire type proper), another's is prefixed with its
// package (event.Usage is EventUsage beside api's Usage).
func (w *wireSchemas) name() {
	byBase := map[string][]reflect.Type{}
	for _, t := range w.order {
		b := exported(t.Name())
		byBase[b] = append(byBase[b], t)
	}
	self := reflect.TypeFor[wireSchemas]().PkgPath()
	for base, ts := range byBase {
		for _, t := range ts {
			if len(ts) == 1 || t.PkgPath() == self {
				w.names[t] = base
			} else {
				w.names[t] = exported(path.Base(t.PkgPath())) + base
			}
		}
	}
	slices.SortFunc(w.order, func(a, b reflect.Type) int { return strings.Compare(w.names[a], w.names[b]) })
}

func exported(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// schemaOf is the schema of a use of type t: a $ref for a component.
func (w *wireSchemas) schemaOf(t reflect.Type) (*jsonschema.Schema, error) {
	return w.infer(t, nil)
}

// infer is jsonschema-go's schema of t with every component but those
// embedded in self (whose fields are self's own) as a $ref, and the
// vocabularies as enums; tidied to the rules of the package comment.
func (w *wireSchemas) infer(t reflect.Type, self *reflect.Type) (*jsonschema.Schema, error) {
	known := make(map[reflect.Type]*jsonschema.Schema, len(w.leafs)+len(w.names))
	for lt, s := range w.leafs {
		known[lt] = s
	}
	var embedded map[reflect.Type]bool
	if self != nil {
		embedded = map[reflect.Type]bool{}
		for _, f := range reflect.VisibleFields(*self) {
			if embedsStruct(f) {
				embedded[f.Type] = true
			}
		}
	}
	for ct, name := range w.names {
		if (self != nil && ct == *self) || embedded[ct] {
			continue
		}
		known[ct] = &jsonschema.Schema{Ref: componentRef + name}
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: known})
	if err != nil {
		return nil, err
	}
	tidy(s)
	return s, nil
}

// components are the schemas of the document's components, by name.
func (w *wireSchemas) components() (map[string]*jsonschema.Schema, error) {
	out := make(map[string]*jsonschema.Schema, len(w.order))
	for _, t := range w.order {
		s, err := w.infer(t, &t)
		if err == nil {
			err = declareFields(t, s)
		}
		if err != nil {
			return nil, fmt.Errorf("schema of %s: %w", t, err)
		}
		out[w.names[t]] = s
	}
	return out, nil
}

// tidy applies the document's rules on null to s and what it holds: a list
// is never null, an optional property is absent rather than null, and a
// required pointer to a component may be null.
func tidy(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if slices.Equal(s.Types, []string{"null", "array"}) {
		s.Types, s.Type = nil, "array"
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	for name, p := range s.Properties {
		if !required[name] {
			dropNull(p)
		} else if p.Ref != "" && slices.Equal(p.Types, []string{"null"}) {
			s.Properties[name] = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Ref: p.Ref}, {Type: "null"}}}
		}
		tidy(s.Properties[name])
	}
	tidy(s.Items)
	tidy(s.AdditionalProperties)
	for _, a := range s.AnyOf {
		tidy(a)
	}
}

// dropNull takes null out of the types s allows.
func dropNull(s *jsonschema.Schema) {
	if !slices.Contains(s.Types, "null") {
		return
	}
	rest := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
	s.Types = nil
	if len(rest) == 1 && s.Ref == "" {
		s.Type = rest[0]
	} else if len(rest) > 1 {
		s.Types = rest
	}
}

// documentSchemas are the components.schemas of the document of routes:
// every wire type, the event payloads by type, the run-level event types
// and the error contract; and the wire schemas, which give a body's $ref.
func documentSchemas(routes []route) (*wireSchemas, map[string]any, error) {
	roots := wireRoots()
	for _, rt := range routes {
		for _, v := range []any{rt.request, rt.response} {
			if v != nil {
				roots = append(roots, reflect.TypeOf(v))
			}
		}
	}
	w, err := newWireSchemas(roots)
	if err != nil {
		return nil, nil, err
	}
	components, err := w.components()
	if err != nil {
		return nil, nil, err
	}
	payloads, err := w.eventPayloads()
	if err != nil {
		return nil, nil, err
	}
	// Error is the contract of every error answer; ErrorBody, the Go type,
	// is that with what some errors add (conflicts).
	schemas := map[string]any{"Error": errorSchema, "EventPayloads": payloads, "RunLevelEventType": runLevelTypes()}
	for name, c := range components {
		schemas[name] = c
	}
	return w, schemas, nil
}

// wireRoots are the types on the wire besides the route table's bodies: the
// event envelope and every payload, the WebSocket's messages and the error
// answer.
func wireRoots() []reflect.Type {
	roots := []reflect.Type{reflect.TypeFor[event.Event](), reflect.TypeFor[wsIn](), reflect.TypeFor[wsOut](), reflect.TypeFor[errorBody]()}
	for _, p := range event.Payloads() {
		roots = append(roots, reflect.TypeOf(p.Data))
	}
	return roots
}

// runLevelTypes is the enum of the event types that also reach the
// subscription to all runs (event.Event.IsRunLevel).
func runLevelTypes() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string"}
	for _, p := range event.Payloads() {
		if (event.Event{Type: p.Type}).IsRunLevel() {
			s.Enum = append(s.Enum, string(p.Type))
		}
	}
	return s
}

// eventPayloads is the schema that maps each event type to its payload's:
// what Event.data holds for each Event.type.
func (w *wireSchemas) eventPayloads() (*jsonschema.Schema, error) {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, p := range event.Payloads() {
		ps, err := w.schemaOf(reflect.TypeOf(p.Data))
		if err != nil {
			return nil, err
		}
		s.Properties[string(p.Type)] = ps
		s.Required = append(s.Required, string(p.Type))
		s.PropertyOrder = append(s.PropertyOrder, string(p.Type))
	}
	return s, nil
}
