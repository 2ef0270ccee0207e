// Package console is the terminal surface of `steward run`: it prints a
// run's transcript as its events commit, asks the run's approvals on the
// terminal (y approves; n denies, with an optional reason that the model
// receives; e edits the arguments, then approves), asks the agent's
// questions, and when the run pauses offers continue, step, a steer message,
// retry or skip of an interrupted call, or cancel. An approval answered on
// another surface first is reported as such; a closed stdin denies approvals
// and cancels a paused run, so a script never hangs on a prompt. Model text
// is drawn as Markdown when the output is in colour, and printed as written
// otherwise (text.go, markdown.go); either way it cannot command the
// terminal.
//
// Prompts are asked one at a time by one goroutine, reading the lines of a
// single reader goroutine, so two prompts never compete for the terminal.
// That reader blocks on stdin and ends only with the input or the process.
package console

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/run"
	"steward/backend/store"
	"steward/backend/tools/shell"
)

// Answerer answers approvals.
type Answerer interface {
	Answer(ctx context.Context, id string, d inbox.Decision) (store.Interaction, error)
}

// Commander sends control commands to a run.
type Commander interface {
	Command(ctx context.Context, runID string, c run.Command) (run.CommandResult, error)
}

// Console prints one run and asks its approvals.
type Console struct {
	Out    io.Writer
	In     io.Reader
	Inbox  Answerer
	Runs   Commander
	Bus    *event.Bus
	Reader event.Reader
	// NewID makes command ids.
	NewID func() string
	// Color enables ANSI colours, and model text drawn as Markdown; without
	// it, model text is printed as written.
	Color bool
	// After is the seq after which Follow prints the run's log: 0 for all
	// of it, the end of the last turn for a follow-up's.
	After int64

	// EditFile, when set, opens a file in the person's editor and returns
	// when they close it ($EDITOR on the terminal): e on an approval edits
	// its pretty-printed arguments there rather than on one line.
	EditFile func(ctx context.Context, path string) error

	lines <-chan string // closed at the end of the input
	want  chan struct{} // asks the reader for one line
}

// readLines starts the one reader of the input. It reads a line only when
// one is asked for (want), so that between prompts the terminal is free:
// an editor started for an approval gets the keys.
func (c *Console) readLines() <-chan string {
	ch := make(chan string)
	c.want = make(chan struct{}, 1)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(c.In)
		for range c.want {
			if !sc.Scan() {
				return
			}
			ch <- sc.Text()
		}
	}()
	return ch
}

// line waits for the next input line; ok is false at the end of the input.
func (c *Console) line(ctx context.Context) (string, bool) {
	select {
	case c.want <- struct{}{}:
	default: // asked already, by a prompt the run's end cut short
	}
	select {
	case l, ok := <-c.lines:
		return strings.TrimSpace(l), ok
	case <-ctx.Done():
		return "", false
	}
}

// Follow prints the events of runID until the run ends (returns its final
// status) or ctx ends.
func (c *Console) Follow(ctx context.Context, runID string) (event.RunStatusData, error) {
	var final event.RunStatusData
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.lines == nil {
		c.lines = c.readLines()
	}
	prompts := make(chan func(), 64) // asked in order, one at a time
	promptsDone := make(chan struct{})
	go func() {
		defer close(promptsDone)
		for {
			select {
			case p := <-prompts:
				p()
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() { cancel(); <-promptsDone }()
	streaming := "" // the llm node whose text is being printed
	text := &modelText{out: c.Out, color: c.Color}
	err := event.Follow(ctx, c.Bus, c.Reader, runID, c.After, event.FollowOptions{
		Send: func(ev event.Event) error {
			if streaming != "" && (ev.Type != event.LLMDelta || ev.NodeID != streaming) {
				text.end()
				streaming = ""
			}
			switch ev.Type {
			case event.RunCreated:
				var d event.RunCreatedData
				_ = ev.Decode(&d)
				demo := ""
				if d.Agent.Demo {
					demo = c.paint("33", " [demo script: no model is called]")
				}
				fmt.Fprintf(c.Out, "%s %s, agent %s (%s %s)%s\n  workspace %s\n", c.paint("1", "run"), ev.RunID, d.Agent.Name, d.Agent.Provider, d.Agent.Model, demo, d.Workspace)
				if note := sandboxNote(d.Sandbox); note != "" {
					fmt.Fprintf(c.Out, "  %s\n", c.paint("33", note))
				}
			case event.LLMDelta:
				var d event.LLMDeltaData
				_ = ev.Decode(&d)
				text.write(d.Text)
				streaming = ev.NodeID
			case event.NodeStarted:
				var d event.NodeStartedData
				_ = ev.Decode(&d)
				if d.Kind == event.KindTool {
					fmt.Fprintf(c.Out, "%s %s %s\n", c.paint("36", "→"), d.Tool, shown(d.Tool, d.Arguments, 200))
				}
			case event.NodeFinished:
				var d event.NodeFinishedData
				_ = ev.Decode(&d)
				switch {
				case d.Output != "" && d.IsError:
					fmt.Fprintf(c.Out, "  %s %s\n", c.paint("31", string(d.Status)+":"), indent(clip(d.Output, 800)))
				case d.Output != "":
					fmt.Fprintf(c.Out, "  %s\n", c.paint("2", indent(clip(d.Output, 800))))
				case d.Status == event.NodeFailed && d.Error != "":
					fmt.Fprintf(c.Out, "  %s %s\n", c.paint("31", "failed:"), d.Error)
				}
			case event.ApprovalRequested:
				var d event.ApprovalRequestedData
				_ = ev.Decode(&d)
				switch d.Kind {
				case event.InteractionQuestion:
					prompts <- func() { c.question(ctx, d) }
				case event.InteractionElicitation:
					prompts <- func() { c.elicitation(ctx, d) }
				default:
					prompts <- func() { c.ask(ctx, d) } // never block the feed on a person
				}
			case event.ApprovalDecided:
				var d event.ApprovalDecidedData
				_ = ev.Decode(&d)
				line := string(d.Decision) + "d"
				switch {
				case d.Decision == event.DecisionApprove && len(d.Arguments) > 0:
					line = "approved with edited arguments " + compact(d.Arguments, 200)
				case d.Decision == event.DecisionApprove:
					line = "approved"
				case d.Decision == event.DecisionDeny:
					line = "denied"
				case d.Kind == event.InteractionElicitation && d.Decision == event.DecisionAnswer:
					line = "answered"
				case d.Kind == event.InteractionElicitation:
					line = "declined"
				case d.Decision == event.DecisionAnswer:
					line = "answered: " + strings.Join(append(slices.Clone(d.Choices), d.Text), " ")
				}
				if d.Feedback != "" {
					line += ": " + d.Feedback
				}
				fmt.Fprintf(c.Out, "  %s (%s)\n", c.paint("33", line), d.Source)
			case event.RunStatus:
				var d event.RunStatusData
				_ = ev.Decode(&d)
				switch st := run.Status(d.Status); {
				case st == run.Pausing:
					fmt.Fprintln(c.Out, c.paint("33", "pausing at the next safe point… (Ctrl-C again cancels)"))
				case st == run.Paused:
					prompts <- func() { c.paused(ctx, ev.RunID, d) }
				case st.Terminal():
					final = d
					msg := d.Status
					if d.Error != "" {
						msg += ": " + d.Error
					} else if d.Reason != "" {
						msg += ": " + d.Reason
					}
					col := "32"
					if st != run.Completed {
						col = "31"
					}
					fmt.Fprintf(c.Out, "%s\n", c.paint(col, "run "+msg))
					cancel()
				}
			}
			return nil
		},
	})
	if final.Status != "" {
		return final, nil
	}
	if err == nil {
		err = ctx.Err()
	}
	return final, err
}

// ask prompts for one approval on the terminal.
func (c *Console) ask(ctx context.Context, d event.ApprovalRequestedData) {
	what := shown(d.Tool, d.Arguments, 400)
	if d.Preview != nil && d.Preview.Diff != "" {
		what = "" // the diff names the files and shows the change
	}
	fmt.Fprintf(c.Out, "%s %s %s\n", c.paint("33;1", "approve?"), d.Tool, what)
	c.preview(d.Preview)
	fmt.Fprintf(c.Out, "  %s [y/n, a = always in this run, e = edit] ", d.Reason)
	ans, ok := c.line(ctx)
	if ctx.Err() != nil {
		return // the run ended meanwhile
	}
	dec := inbox.Decision{Source: "cli"}
	switch ans = strings.ToLower(ans); {
	case !ok && ans == "":
		fmt.Fprintln(c.Out)
		dec.Decision, dec.Feedback = "deny", "no answer on the terminal (input closed)"
	case ans == "y" || ans == "yes":
		dec.Decision = "approve"
	case ans == "a" || ans == "always":
		dec.Decision, dec.Scope = "approve", "run" // the same call again in this run runs without asking
	case ans == "e" || ans == "edit":
		args, ok := c.edit(ctx, d)
		if !ok {
			return
		}
		dec.Decision, dec.Arguments = "approve", args
	default:
		dec.Decision = "deny"
		fmt.Fprint(c.Out, "  reason for the model (optional): ")
		dec.Feedback, _ = c.line(ctx)
	}
	if _, err := c.Inbox.Answer(context.WithoutCancel(ctx), d.InteractionID, dec); err != nil {
		if errors.Is(err, inbox.ErrAnswered) {
			fmt.Fprintln(c.Out, "  (already answered on another surface)")
			return
		}
		if errors.Is(err, inbox.ErrInvalid) && len(dec.Arguments) > 0 {
			fmt.Fprintf(c.Out, "  %s\n", strings.TrimPrefix(err.Error(), inbox.ErrInvalid.Error()+": "))
			c.ask(ctx, d) // the approval is still open: ask again
			return
		}
		fmt.Fprintf(c.Out, "  could not record the answer: %v\n", err)
	}
}

// paused offers the commands of a paused run until one lets it go on (or
// ends it). A closed input cancels: nobody is there to continue.
func (c *Console) paused(ctx context.Context, runID string, d event.RunStatusData) {
	next := "the next model call"
	interrupted := false
	if n := d.Next; n != nil && n.Kind == "tool" {
		next = n.Tool + " " + compact(n.Arguments, 300)
		interrupted = n.Interrupted
	}
	fmt.Fprintf(c.Out, "%s (%s). Next: %s\n", c.paint("33;1", "paused"), d.Reason, next)
	var budget *event.Limits
	if d.Next != nil {
		budget = d.Next.Limits
	}
	for {
		if interrupted {
			fmt.Fprint(c.Out, "  it may or may not have run: [r]etry it, s[k]ip it, [m]essage to steer, or [x] cancel the run: ")
		} else if budget != nil {
			fmt.Fprint(c.Out, "  [r]aise the budget (double it) and continue, [m]essage to steer, or [x] cancel the run: ")
		} else {
			fmt.Fprint(c.Out, "  [c]ontinue, [s]tep, [m]essage to steer, or [x] cancel the run: ")
		}
		ans, ok := c.line(ctx)
		if ctx.Err() != nil {
			return // the run ended meanwhile
		}
		if !ok {
			fmt.Fprintln(c.Out, "\n  input closed: cancelling the run")
			c.command(ctx, runID, run.Command{Type: run.CmdCancel})
			return
		}
		verb, text, _ := strings.Cut(ans, " ")
		cmd := run.Command{}
		switch strings.ToLower(verb) {
		case "c", "continue":
			cmd.Type = run.CmdContinue
		case "s", "step":
			cmd.Type = run.CmdStep
		case "r", "retry", "raise":
			cmd.Type = run.CmdRetry
			if budget != nil {
				doubled := event.Limits{MaxSteps: 2 * budget.MaxSteps, MaxTokens: 2 * budget.MaxTokens,
					MaxCostUSD: 2 * budget.MaxCostUSD, MaxWallTimeMS: 2 * budget.MaxWallTimeMS}
				cmd.Type, cmd.Limits = run.CmdContinue, &doubled
			}
		case "k", "skip":
			cmd.Type = run.CmdSkip
		case "x", "cancel":
			cmd.Type = run.CmdCancel
		case "m", "message", "steer":
			if strings.TrimSpace(text) == "" {
				fmt.Fprint(c.Out, "  message: ")
				text, _ = c.line(ctx)
			}
			if strings.TrimSpace(text) != "" {
				c.command(ctx, runID, run.Command{Type: run.CmdSteer, Text: text})
			}
			continue // a steer leaves the run paused
		default:
			continue
		}
		if c.command(ctx, runID, cmd) {
			return
		}
	}
}

// command sends c and reports a rejection; it returns whether c was accepted.
func (c *Console) command(ctx context.Context, runID string, cmd run.Command) bool {
	cmd.CommandID = c.NewID()
	res, err := c.Runs.Command(context.WithoutCancel(ctx), runID, cmd)
	if err != nil {
		fmt.Fprintf(c.Out, "  %s failed: %v\n", cmd.Type, err)
		return false
	}
	if res.Status != "accepted" {
		fmt.Fprintf(c.Out, "  %s: %s\n", cmd.Type, res.Message)
		return false
	}
	return true
}

func (c *Console) paint(code, s string) string {
	if !c.Color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func compact(raw json.RawMessage, max int) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return clip(string(raw), max)
	}
	// As typed: the log's JSON escapes <, > and & (2>&1 read 2\u003e\u00261).
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return clip(strings.TrimSuffix(b.String(), "\n"), max)
}

// shown is how a terminal shows a call's arguments: a command line as the
// command line, anything else as compact JSON.
func shown(name string, raw json.RawMessage, max int) string {
	if name == shell.RunCommand {
		var a struct {
			Command string `json:"command"`
			Cwd     string `json:"cwd"`
		}
		if json.Unmarshal(raw, &a) == nil && a.Command != "" {
			line := "$ " + a.Command
			if a.Cwd != "" {
				line += "   (in " + a.Cwd + ")"
			}
			return clip(line, max)
		}
	}
	return compact(raw, max)
}

func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return s[:max] + fmt.Sprintf("… (%d more bytes)", len(s)-max)
}

func indent(s string) string { return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") }

// sandboxNote says what becomes of the run's commands when the sandbox does
// not confine them; "" when it does, or the run does not say.
func sandboxNote(s *event.Sandbox) string {
	switch {
	case s == nil || s.Confined:
		return ""
	case s.Mode == "off":
		return "the sandbox is off for this run: commands see what Steward's user sees"
	case s.Mode == "on":
		return "commands are refused: the sandbox is on and cannot work here (" + s.Reason + ")"
	}
	return "commands are not sandboxed here (" + s.Reason + "): each one asks first"
}
