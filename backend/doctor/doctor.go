// Package doctor checks the machine Steward runs on, for `steward doctor`:
// whether commands can be sandboxed, whether Chromium and ffmpeg are there
// for the browser tools and their recordings, whether the configured model
// providers answer, and whether the data directory is private to its owner.
// Each check says what it found and, when something is wrong, what to do.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"steward/backend/config"
	"steward/backend/sandbox"
)

// Status is a check's outcome.
type Status string

// Outcomes, from good to bad. A warning is something Steward works around
// (no Chromium: no browser tools); a failure is something to fix.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Check is one finding.
type Check struct {
	Name   string // what was checked: sandbox, chromium, ffmpeg, provider openai, data directory
	Status Status
	Detail string // what was found, and what to do when it is not ok
}

// Providers is what doctor needs of the provider settings: their view
// (which are configured) and a connection test.
type Providers interface {
	View(ctx context.Context) (config.SettingsView, error)
	Test(ctx context.Context, name string) (config.TestResult, error)
}

var _ Providers = (*config.Settings)(nil)

// Params are what the checks look at.
type Params struct {
	// Home is the data directory.
	Home string
	// Sandbox says whether commands can be sandboxed here.
	Sandbox interface{ Available() error }
	// Chromium and FFmpeg find the programs; an error says why they are
	// not there.
	Chromium func() (string, error)
	FFmpeg   func() (string, error)
	// Providers are the model providers' settings; nil skips their checks.
	Providers Providers
	// Version runs a program with --version, for what is found; nil does
	// not run anything.
	Version func(ctx context.Context, path string) (string, error)
}

// providerTimeout bounds each provider's test; a provider that does not
// answer in that time is as good as unreachable.
const providerTimeout = 10 * time.Second

// Run makes every check, in order: sandbox, Chromium, ffmpeg, providers,
// data directory.
func Run(ctx context.Context, p Params) []Check {
	checks := []Check{sandboxCheck(p.Sandbox)}
	checks = append(checks, programCheck(ctx, p, "chromium", p.Chromium,
		"the browser tools cannot run: install chromium (apt-get install chromium) or set browser.chromium in config.json or STEWARD_CHROMIUM"))
	checks = append(checks, programCheck(ctx, p, "ffmpeg", p.FFmpeg,
		"browser recordings are kept as frames, not made into videos: install ffmpeg (apt-get install ffmpeg)"))
	if p.Providers != nil {
		checks = append(checks, providerChecks(ctx, p.Providers)...)
	}
	return append(checks, dataDirChecks(p.Home)...)
}

func sandboxCheck(sb interface{ Available() error }) Check {
	c := Check{Name: "sandbox"}
	var err error
	if sb == nil {
		err = fmt.Errorf("no sandbox was set up for commands")
	} else {
		err = sb.Available()
	}
	if err != nil {
		c.Status = Warn
		c.Detail = err.Error() + ". Agents in sandbox mode auto (the default) ask before every command, those in mode on refuse commands."
		return c
	}
	c.Status = OK
	c.Detail = "commands run in bubblewrap: the workspace writable, the rest read-only, the data directory and credentials hidden, no other process visible, no network unless an agent allows it"
	return c
}

func programCheck(ctx context.Context, p Params, name string, find func() (string, error), without string) Check {
	c := Check{Name: name}
	if find == nil {
		return Check{Name: name, Status: Warn, Detail: "not looked for"}
	}
	path, err := find()
	if err != nil {
		c.Status, c.Detail = Warn, fmt.Sprintf("%v: %s", err, without)
		return c
	}
	c.Status, c.Detail = OK, path
	if p.Version != nil {
		v, err := p.Version(ctx, path)
		if errors.Is(err, context.DeadlineExceeded) {
			// Slow is not broken: a cold start on a busy machine can take
			// this long, so it is a warning to look again, not a failure.
			c.Status, c.Detail = Warn, fmt.Sprintf("%s is there but did not print its version within %s (a busy machine?): run steward doctor again", path, versionTimeout)
			return c
		}
		if err != nil {
			c.Status, c.Detail = Fail, fmt.Sprintf("%s is there but does not run: %v", path, err)
			return c
		}
		c.Detail += ": " + v
	}
	return c
}

func providerChecks(ctx context.Context, ps Providers) []Check {
	view, err := ps.View(ctx)
	if err != nil {
		return []Check{{Name: "providers", Status: Fail, Detail: err.Error()}}
	}
	var out []Check
	for _, pv := range view.Providers {
		if !pv.Key.Set && (pv.BaseURL == "" || pv.BaseURL == pv.DefaultBaseURL) {
			continue // not configured
		}
		tctx, cancel := context.WithTimeout(ctx, providerTimeout)
		res, err := ps.Test(tctx, string(pv.Name))
		cancel()
		c := Check{Name: "provider " + string(pv.Name)}
		switch {
		case err != nil:
			c.Status, c.Detail = Fail, err.Error()
		case !res.OK:
			c.Status, c.Detail = Fail, res.Message
		default:
			c.Status, c.Detail = OK, fmt.Sprintf("%s (%d ms)", res.Message, res.LatencyMS)
		}
		out = append(out, c)
	}
	for _, ls := range view.LocalServers {
		if ls.Found {
			out = append(out, Check{Name: "local model server", Status: OK,
				Detail: fmt.Sprintf("%s answers with %d models", ls.BaseURL, len(ls.Models))})
		}
	}
	if len(out) == 0 {
		out = append(out, Check{Name: "providers", Status: Warn,
			Detail: "no model provider is configured and no local model server answers: agents set to auto play the demo script. Set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL, or add a key in Settings"})
	}
	return out
}

// versionTimeout bounds a program's --version.
const versionTimeout = 10 * time.Second

// ProgramVersion runs path --version (or -version, as ffmpeg has it) with
// the environment of every program Steward starts (sandbox.Env), and
// returns the first line it printed.
func ProgramVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	var err error
	for _, flag := range []string{"--version", "-version"} {
		cmd := exec.CommandContext(ctx, path, flag)
		cmd.Env = sandbox.Env()
		// A child the program leaves behind may hold its output open;
		// do not wait for it past the deadline.
		cmd.WaitDelay = time.Second
		var out []byte
		if out, err = cmd.Output(); err == nil {
			line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
			return line, nil
		}
	}
	return "", err
}

// Write prints the checks, one a line, and reports whether any failed.
func Write(w io.Writer, checks []Check) (failed bool, err error) {
	width := 0
	for _, c := range checks {
		width = max(width, len(c.Name))
	}
	var b strings.Builder
	for _, c := range checks {
		fmt.Fprintf(&b, "%-4s  %-*s  %s\n", c.Status, width, c.Name, c.Detail)
		failed = failed || c.Status == Fail
	}
	_, err = io.WriteString(w, b.String())
	return failed, err
}
