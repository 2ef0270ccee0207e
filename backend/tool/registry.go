package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Diagnostic codes of model-visible failures raised by the registry.
const (
	CodeUnknownTool      = "unknown_tool"
	CodeInvalidArguments = "invalid_arguments"
	CodeTimeout          = "timeout"
	CodeCancelled        = "cancelled"
)

// DefaultTimeout bounds a tool call that sets no deadline of its own; a tool
// call must never wait forever (DESIGN.md §1.5).
const DefaultTimeout = 2 * time.Minute

// DefaultMaxOutput caps what one call hands the model, in bytes. Larger output
// keeps its head and tail and says how much was cut, so a runaway tool cannot
// flood the context window or the log.
// It sits above read_file's own 256 KiB cap so a file read whole arrives
// whole.
const DefaultMaxOutput = 288 << 10

// ErrDuplicate is returned when a tool name is registered twice.
var ErrDuplicate = errors.New("tool already registered")

// Registry holds the tools and applies the middleware around each call. It is
// safe for concurrent use once built; register the tools before first use.
// Sources may come and go at any time (a person adds or removes an MCP
// server); a source's tools join when it is first listed (source.go).
type Registry struct {
	tools     map[string]entry
	Timeout   time.Duration
	MaxOutput int
	timeouts  map[string]time.Duration // per tool, overriding Timeout
	enders    []RunEnder
	srcMu     sync.RWMutex // guards sources
	sources   []*source
	// parent is the registry a Layer was made of: its tools, timeouts and
	// sources serve the layer too.
	parent *Registry
}

type entry struct {
	tool   Tool
	schema *jsonschema.Resolved
}

// NewRegistry returns an empty registry with the default limits.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]entry{}, Timeout: DefaultTimeout, MaxOutput: DefaultMaxOutput, timeouts: map[string]time.Duration{}}
}

// SetTimeout sets the deadline of one registered tool's calls, or of a
// tool a source owns the name of (it is not listed for that).
func (r *Registry) SetTimeout(name string, d time.Duration) error {
	if r.parent != nil {
		return fmt.Errorf("timeout for %q: set on the registry a layer was made of", name)
	}
	if _, ok := r.tools[name]; !ok && r.owner(name) == nil {
		return fmt.Errorf("timeout for %q: no such tool", name)
	}
	if d <= 0 {
		return fmt.Errorf("timeout for %q: %s is not positive", name, d)
	}
	r.timeouts[name] = d
	return nil
}

func (r *Registry) timeout(name string) time.Duration {
	if d, ok := r.timeouts[name]; ok {
		return d
	}
	return r.Timeout
}

// Register adds t. Its schema must be a valid JSON Schema.
func (r *Registry) Register(t Tool) error {
	spec := t.Spec()
	if r.parent != nil {
		return fmt.Errorf("register %s: a layer takes sources only", spec.Name)
	}
	if _, ok := r.tools[spec.Name]; ok {
		return fmt.Errorf("register %s: %w", spec.Name, ErrDuplicate)
	}
	if s := r.owner(spec.Name); s != nil {
		return fmt.Errorf("register %s: %w: source %s owns the name", spec.Name, ErrDuplicate, s.src.Prefix())
	}
	rs, err := resolve(spec)
	if err != nil {
		return err
	}
	r.tools[spec.Name] = entry{tool: t, schema: rs}
	return nil
}

// AddRunEnder adds e to what EndRun calls.
func (r *Registry) AddRunEnder(e RunEnder) { r.enders = append(r.enders, e) }

// EndRun tells every run ender that env's run has ended and returns the
// artifacts they produced. It goes on past a failing ender: each keeps its
// own state, and one's failure must not leave another's browser open.
func (r *Registry) EndRun(ctx context.Context, env Env) ([]Artifact, error) {
	var out []Artifact
	var errs []error
	for _, e := range r.enders {
		a, err := e.EndRun(ctx, env)
		out = append(out, a...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if r.parent != nil {
		a, err := r.parent.EndRun(ctx, env)
		out = append(out, a...)
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// Key returns the key argument of a call to the named tool when the tool
// decides it (see Keyer); ok is false when the arguments decide, or the
// tool is unknown.
func (r *Registry) Key(name string, env Env, args json.RawMessage) (key string, ok bool) {
	e, found := r.lookup(name)
	if !found {
		return "", false
	}
	k, isKeyer := e.tool.(Keyer)
	if !isKeyer {
		return "", false
	}
	return k.Key(env, args)
}

// Touches returns the workspace paths a call to the named tool will open,
// when the tool declares them (see Toucher); ok is false when it does not,
// or the tool is unknown.
func (r *Registry) Touches(name string, env Env, args json.RawMessage) (touches []Touch, ok bool) {
	e, found := r.lookup(name)
	if !found {
		return nil, false
	}
	t, isToucher := e.tool.(Toucher)
	if !isToucher {
		return nil, false
	}
	return t.Touches(env, args)
}

// Precheck asks the tool of a call whether it would refuse the call as
// things are now (tool.Prechecker), without the call's effect: the refusal
// it would give, and true. A tool that cannot tell, or would run the call,
// gives false.
func (r *Registry) Precheck(ctx context.Context, name string, env Env, args json.RawMessage) (Result, bool) {
	e, found := r.lookup(name)
	if !found {
		return Result{}, false
	}
	p, ok := e.tool.(Prechecker)
	if !ok {
		return Result{}, false
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return p.Precheck(ctx, env, args)
}

// Preview is what a call would change (tool.Previewer), when its tool
// can tell.
func (r *Registry) Preview(ctx context.Context, name string, env Env, args json.RawMessage) (Preview, bool) {
	e, found := r.lookup(name)
	if !found {
		return Preview{}, false
	}
	p, ok := e.tool.(Previewer)
	if !ok {
		return Preview{}, false
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return p.Preview(ctx, env, args)
}

// Specs returns the specs of the named tools (all registered ones when
// names is empty: a source's tools only when named), sorted by name. A
// source's Pattern names all its tools, listing them if need be. Unknown
// names are ignored; agent validation reports them.
func (r *Registry) Specs(names ...string) []Spec {
	var out []Spec
	if len(names) == 0 {
		for _, e := range r.tools {
			out = append(out, e.tool.Spec())
		}
	} else {
		seen := map[string]bool{}
		for _, pn := range names {
			for _, n := range r.expand(pn) {
				if e, ok := r.lookup(n); ok && !seen[n] {
					seen[n] = true
					out = append(out, e.tool.Spec())
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the spec of the named tool.
func (r *Registry) Lookup(name string) (Spec, bool) {
	e, ok := r.lookup(name)
	if !ok {
		return Spec{}, false
	}
	return e.tool.Spec(), true
}

// Validate checks args against the tool's schema. The returned Result is
// the model-visible failure when ok is false.
func (r *Registry) Validate(name string, args json.RawMessage) (res Result, ok bool) {
	e, found := r.lookup(name)
	if !found {
		return Errorf(CodeUnknownTool, fmt.Sprintf("unknown tool %q; available tools: %s", name, strings.Join(r.names(), ", "))), false
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var inst any
	if err := json.Unmarshal(args, &inst); err != nil {
		return Errorf(CodeInvalidArguments, fmt.Sprintf("arguments of %s are not valid JSON: %v", name, err)), false
	}
	if err := e.schema.Validate(inst); err != nil {
		return Errorf(CodeInvalidArguments, fmt.Sprintf("arguments of %s do not match its schema: %v", name, err)), false
	}
	return Result{}, true
}

// Call validates args and runs the tool with a deadline, panic recovery and
// the output cap. The deadline is raced against the tool: a tool that ignores
// its context still returns control within Timeout (plus a short grace), and
// its goroutine is left to finish on its own and reported through the error
// log of its result. Cancellation of ctx ends the call with a cancelled
// result unless the tool had already succeeded.
func (r *Registry) Call(ctx context.Context, env Env, name string, args json.RawMessage) (Result, error) {
	if res, ok := r.Validate(name, args); !ok {
		return res, nil
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	parent := ctx
	limit := r.timeout(name)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1) // buffered: a late tool never blocks on send
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o = outcome{err: fmt.Errorf("tool %s panicked: %v\n%s", name, p, debug.Stack())}
			}
			done <- o
		}()
		e, _ := r.lookup(name) // Validate found it
		o.res, o.err = e.tool.Run(ctx, env, args)
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		select {
		case o = <-done:
		case <-time.After(toolGrace):
			o = outcome{res: Result{IsError: true}}
		}
	}
	// A tool that noticed its context ending reports whatever its library
	// said (or a Go error); the model learns more from the plain reason. A
	// call that succeeded stays a success: its effect happened.
	if ctx.Err() != nil && (o.err != nil || o.res.IsError) {
		if parent.Err() != nil {
			return Errorf(CodeCancelled, name+" was cancelled"), nil
		}
		return Errorf(CodeTimeout, fmt.Sprintf("%s did not finish within %s", name, limit)), nil
	}
	if o.err != nil {
		return Result{}, fmt.Errorf("tool %s: %w", name, o.err)
	}
	o.res.Output = Truncate(o.res.Output, r.MaxOutput)
	return o.res, nil
}

// toolGrace is how long Call waits, after the deadline, for a tool to notice.
// It outlasts a command's own stop (SIGTERM, then SIGKILL 2 s later), so a
// cancelled command is reported when its processes are gone.
const toolGrace = 3 * time.Second

func (r *Registry) names() []string {
	out := make([]string, 0, len(r.tools))
	for n := range r.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Truncate keeps the head and tail of s within about max bytes and says how
// many bytes were cut in between. It cuts on rune boundaries.
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	h := max / 2
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - max/2
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return fmt.Sprintf("%s\n… [%d bytes cut] …\n%s", s[:h], t-h, s[t:])
}
