// Package tool holds the tool interface, the registry that offers tools to
// the model, and the middleware every call goes through: argument validation
// against the tool's JSON Schema, a deadline, panic recovery and output caps.
//
// A tool's own failure (file not found, bad arguments) is a Result with
// IsError set: the model sees it and the run goes on. A Go error from a tool
// means the system failed.
package tool

import (
	"context"
	"encoding/json"
)

// Risk says what a tool can do, for the permission policy and the UI.
type Risk string

// Risks, from least to most dangerous.
const (
	RiskRead        Risk = "read"        // reads the workspace
	RiskWrite       Risk = "write"       // changes the workspace
	RiskExec        Risk = "exec"        // runs a program
	RiskNetwork     Risk = "network"     // reaches the network
	RiskDestructive Risk = "destructive" // can lose work
)

// Spec describes a tool.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Risk        Risk            `json:"risk"`
	Schema      json.RawMessage `json:"schema"`
}

// Env is what a call may know of its run.
type Env struct {
	RunID string
	// Workspace is the absolute, symlink-resolved root the call is confined to.
	Workspace string
}

// Result is what the model receives.
type Result struct {
	Output  string `json:"output"`
	IsError bool   `json:"is_error,omitempty"`
	// Code classifies a model-visible failure, for example invalid_arguments.
	Code string `json:"code,omitempty"`
}

// Errorf returns a model-visible failure with a diagnostic code.
func Errorf(code, msg string) Result { return Result{Output: msg, IsError: true, Code: code} }

// Tool is one callable tool. Run receives arguments that already passed
// validation against Spec().Schema.
type Tool interface {
	Spec() Spec
	Run(ctx context.Context, env Env, args json.RawMessage) (Result, error)
}
