package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Typed is a tool whose arguments are the Go struct A; its schema is derived
// from A (json tags for names, jsonschema tags for descriptions).
type Typed[A any] struct {
	spec Spec
	run  func(ctx context.Context, env Env, args A) (Result, error)
}

// New builds a Typed tool. It fails if A has no JSON Schema.
func New[A any](name, description string, risk Risk, run func(ctx context.Context, env Env, args A) (Result, error)) (*Typed[A], error) {
	s, err := jsonschema.For[A](nil)
	if err != nil {
		return nil, fmt.Errorf("schema of tool %s: %w", name, err)
	}
	// Models follow schemas better when they are told extra keys are wrong,
	// and validation then rejects misspelled argument names.
	s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("schema of tool %s: %w", name, err)
	}
	return &Typed[A]{spec: Spec{Name: name, Description: description, Risk: risk, Schema: b}, run: run}, nil
}

// Must is New for tool tables built at start-up, where a schema error is a
// programming error.
func Must[A any](t *Typed[A], err error) *Typed[A] {
	if err != nil {
		panic(err)
	}
	return t
}

// Sandboxed marks the tool as one whose program runs in the OS sandbox
// (Spec.Sandboxed), and returns it.
func (t *Typed[A]) Sandboxed() *Typed[A] {
	t.spec.Sandboxed = true
	return t
}

// Spec implements Tool.
func (t *Typed[A]) Spec() Spec { return t.spec }

// Run implements Tool.
func (t *Typed[A]) Run(ctx context.Context, env Env, raw json.RawMessage) (Result, error) {
	args, err := decode[A](raw)
	if err != nil {
		return Errorf(CodeInvalidArguments, "invalid arguments: "+err.Error()), nil
	}
	return t.run(ctx, env, args)
}

// decode reads raw into A as Run does: unknown fields are an error.
func decode[A any](raw json.RawMessage) (A, error) {
	var args A
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&args)
	return args, err
}

// WithTouches returns t as a Toucher whose calls touch what touches says
// of their arguments, decoded as Run decodes them. Arguments that do not
// decode touch nothing: Run refuses them.
func WithTouches[A any](t *Typed[A], touches func(env Env, args A) []Touch) Tool {
	return &touching[A]{Typed: t, touches: touches}
}

type touching[A any] struct {
	*Typed[A]
	touches func(env Env, args A) []Touch
}

// Touches implements Toucher.
func (t *touching[A]) Touches(env Env, raw json.RawMessage) ([]Touch, bool) {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	args, err := decode[A](raw)
	if err != nil {
		return nil, true
	}
	return t.touches(env, args), true
}
