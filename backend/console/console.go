// Package console is the terminal surface of `steward run`: it prints a
// run's transcript as its events commit and asks the run's approvals on the
// terminal (y approves; n denies, with an optional reason that the model
// receives). An approval answered on another surface first is reported as
// such; a closed stdin denies, so a script never hangs on a prompt.
package console

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"steward/backend/event"
	"steward/backend/inbox"
	"steward/backend/store"
)

// Answerer answers approvals.
type Answerer interface {
	Answer(ctx context.Context, id string, d inbox.Decision) (store.Interaction, error)
}

// Console prints one run and asks its approvals.
type Console struct {
	Out    io.Writer
	In     *bufio.Reader
	Inbox  Answerer
	Bus    *event.Bus
	Reader event.Reader
	// Color enables ANSI colours.
	Color bool
}

// Follow prints the events of runID until the run ends (returns its final
// status) or ctx ends.
func (c *Console) Follow(ctx context.Context, runID string) (event.RunStatusData, error) {
	var final event.RunStatusData
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	streaming := "" // the llm node whose text is being printed
	err := event.Follow(ctx, c.Bus, c.Reader, runID, 0, event.FollowOptions{
		Send: func(ev event.Event) error {
			if streaming != "" && (ev.Type != event.LLMDelta || ev.NodeID != streaming) {
				fmt.Fprintln(c.Out)
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
			case event.LLMDelta:
				var d event.LLMDeltaData
				_ = ev.Decode(&d)
				fmt.Fprint(c.Out, d.Text)
				streaming = ev.NodeID
			case event.NodeStarted:
				var d event.NodeStartedData
				_ = ev.Decode(&d)
				if d.Kind == event.KindTool {
					fmt.Fprintf(c.Out, "%s %s %s\n", c.paint("36", "→"), d.Tool, compact(d.Arguments, 200))
				}
			case event.NodeFinished:
				var d event.NodeFinishedData
				_ = ev.Decode(&d)
				switch {
				case d.Output != "" && d.IsError:
					fmt.Fprintf(c.Out, "  %s %s\n", c.paint("31", d.Status+":"), indent(clip(d.Output, 800)))
				case d.Output != "":
					fmt.Fprintf(c.Out, "  %s\n", c.paint("2", indent(clip(d.Output, 800))))
				case d.Status == event.NodeFailed && d.Error != "":
					fmt.Fprintf(c.Out, "  %s %s\n", c.paint("31", "failed:"), d.Error)
				}
			case event.ApprovalRequested:
				var d event.ApprovalRequestedData
				_ = ev.Decode(&d)
				go c.ask(ctx, d) // never block the feed on a person
			case event.ApprovalDecided:
				var d event.ApprovalDecidedData
				_ = ev.Decode(&d)
				line := d.Decision + "d"
				if d.Decision == "approve" {
					line = "approved"
				} else if d.Decision == "deny" {
					line = "denied"
				}
				if d.Feedback != "" {
					line += ": " + d.Feedback
				}
				fmt.Fprintf(c.Out, "  %s (%s)\n", c.paint("33", line), d.Source)
			case event.RunStatus:
				var d event.RunStatusData
				_ = ev.Decode(&d)
				switch d.Status {
				case "completed", "failed", "cancelled":
					final = d
					msg := d.Status
					if d.Error != "" {
						msg += ": " + d.Error
					} else if d.Reason != "" {
						msg += ": " + d.Reason
					}
					col := "32"
					if d.Status != "completed" {
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
	fmt.Fprintf(c.Out, "%s %s %s\n  %s [y/n] ", c.paint("33;1", "approve?"), d.Tool, compact(d.Arguments, 400), d.Reason)
	line, err := c.In.ReadString('\n')
	dec := inbox.Decision{Source: "cli"}
	switch ans := strings.ToLower(strings.TrimSpace(line)); {
	case err != nil && ans == "":
		dec.Decision, dec.Feedback = "deny", "no answer on the terminal (input closed)"
	case ans == "y" || ans == "yes":
		dec.Decision = "approve"
	default:
		dec.Decision = "deny"
		fmt.Fprint(c.Out, "  reason for the model (optional): ")
		reason, _ := c.In.ReadString('\n')
		dec.Feedback = strings.TrimSpace(reason)
	}
	if _, err := c.Inbox.Answer(context.WithoutCancel(ctx), d.InteractionID, dec); err != nil {
		if errors.Is(err, inbox.ErrAnswered) {
			fmt.Fprintln(c.Out, "  (already answered on another surface)")
			return
		}
		fmt.Fprintf(c.Out, "  could not record the answer: %v\n", err)
	}
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
	b, _ := json.Marshal(v)
	return clip(string(b), max)
}

func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return s[:max] + fmt.Sprintf("… (%d more bytes)", len(s)-max)
}

func indent(s string) string { return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") }
