package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"steward/backend/agent"
	"steward/backend/console"
	"steward/backend/event"
	"steward/backend/policy"
	"steward/backend/run"
	"steward/backend/store"
)

// runCmd is `steward run TEXT`: a run of an agent followed in this
// terminal, its approvals asked here; it exits 0 only if the run completed.
func (p *Program) runCmd(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fl := flag.NewFlagSet("run", flag.ContinueOnError)
	fl.SetOutput(stderr)
	agentName := fl.String("agent", agent.DefaultName, "agent to run (name or id)")
	ws := fl.String("workspace", ".", "workspace folder the agent works in")
	unattended := fl.Bool("unattended", false, "nobody is at the terminal: calls that need approval are denied")
	breakBefore := fl.String("break-before", "", "comma-separated tool names to pause before, like breakpoints")
	maxSteps := fl.Int("max-steps", 0, "budget of model calls for this run (default: the agent's); reaching it pauses the run")
	maxCost := fl.Float64("max-cost-usd", 0, "budget in US dollars for this run (default: the agent's); reaching it pauses the run")
	mode := fl.String("mode", "", "permission mode for this run, instead of the agent's: "+strings.Join(policy.Modes, ", "))
	cont := fl.String("continue", "", "RUN: continue that run, which ended, with the message as a new turn (a follow-up); budgets count every turn")
	fl.Usage = func() {
		fmt.Fprint(stderr, "Usage: steward run [--agent NAME] [--workspace DIR] [--mode MODE] [--unattended] [--break-before TOOLS] \"instructions\"\n"+
			"       steward run --continue RUN [--max-steps N] [--max-cost-usd USD] \"message\"\n\n"+
			"Run an agent in this terminal. Approvals are asked here: y approves, n denies (with an optional reason).\n"+
			"Ctrl-C pauses the run; then continue, step, steer or cancel it here. A second Ctrl-C cancels.\n"+
			"With --continue, a run that completed, failed or was cancelled goes on with the message, as in a chat.\n"+
			"Exits 0 only if the run completed.\n\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, nil
	}
	instructions := strings.TrimSpace(strings.Join(fl.Args(), " "))
	if instructions == "" {
		fl.Usage()
		return 2, nil
	}
	if *mode != "" && !slices.Contains(policy.Modes, *mode) {
		fmt.Fprintf(stderr, "steward: --mode %q is not one of %s\n", *mode, strings.Join(policy.Modes, ", "))
		return 2, nil
	}
	if *cont != "" {
		// The run keeps what it was started with: these would not apply.
		var clash []string
		fl.Visit(func(f *flag.Flag) {
			if f.Name == "agent" || f.Name == "workspace" || f.Name == "unattended" || f.Name == "break-before" || f.Name == "mode" {
				clash = append(clash, "--"+f.Name)
			}
		})
		if len(clash) > 0 {
			fmt.Fprintf(stderr, "steward: --continue goes on with the run's own agent, workspace and settings: drop %s\n", strings.Join(clash, ", "))
			return 2, nil
		}
	}
	s, err := p.Build(getenv, stderr)
	if err != nil {
		return 1, err
	}
	defer s.Close()
	ctx := context.Background()
	var limits *event.Limits
	if *maxSteps != 0 || *maxCost != 0 {
		limits = &event.Limits{MaxSteps: *maxSteps, MaxCostUSD: *maxCost}
	}
	var r store.Run
	var after int64 // the log printed starts after it
	if *cont != "" {
		if r, err = p.followUp(ctx, s, *cont, instructions, limits, stdout); err != nil {
			return 1, err
		}
		after = r.LastSeq
	} else {
		a, err := s.Agents.Get(ctx, *agentName)
		if err != nil {
			return 1, fmt.Errorf("agent %q: %w", *agentName, err)
		}
		var breaks []string
		for _, t := range strings.Split(*breakBefore, ",") {
			if t = strings.TrimSpace(t); t != "" {
				breaks = append(breaks, t)
			}
		}
		if r, err = s.Runs.Start(ctx, run.StartParams{Agent: a, Instructions: instructions, Workspace: *ws, Unattended: *unattended,
			BreakBefore: breaks, Limits: limits, Mode: *mode}); err != nil {
			return 1, err
		}
	}
	// Ctrl-C pauses the run at its next safe point; a second one (while it
	// pauses or is paused) cancels it. SIGTERM cancels at once.
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	go func() {
		for sg := range sig {
			kind := run.CmdCancel
			if cur, err := s.Store.GetRun(ctx, r.ID); err == nil && sg == os.Interrupt &&
				(cur.Status == string(run.Running) || cur.Status == string(run.Waiting)) {
				kind = run.CmdPause
			}
			_, _ = s.Runs.Command(ctx, r.ID, run.Command{CommandID: p.NewID("cmd"), Type: kind})
		}
	}()
	c := &console.Console{Out: stdout, In: stdin, Inbox: s.Inbox, Runs: s.Runs, Bus: s.Bus, Reader: s.Store,
		NewID: func() string { return p.NewID("cmd") }, Color: colorOutput(stdout, getenv), After: after,
		EditFile: editor(stdin, stdout, stderr, getenv)}
	final, err := c.Follow(ctx, r.ID)
	if err != nil {
		return 1, err
	}
	if done := s.Runs.Done(r.ID); done != nil {
		<-done
	}
	if final.Status == string(run.Completed) {
		return 0, nil
	}
	return 1, nil
}

// colorOutput is whether to write ANSI styles (and model text drawn as
// Markdown) to w: when it is a terminal, unless NO_COLOR is set to
// anything (no-color.org).
func colorOutput(w io.Writer, getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && isTerminal(w)
}

// editor opens a file in $VISUAL or $EDITOR (a command line, run by the
// shell as git runs it) on the terminal; nil without one, or when stdin or
// stdout is not a terminal: the arguments are then edited on one line.
func editor(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) func(ctx context.Context, path string) error {
	ed := getenv("VISUAL")
	if ed == "" {
		ed = getenv("EDITOR")
	}
	in, ok := stdin.(*os.File)
	if ed == "" || !ok || !isTerminal(in) || !isTerminal(stdout) {
		return nil
	}
	return func(ctx context.Context, path string) error {
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", ed+` "$1"`, "editor", path)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = in, stdout, stderr
		return cmd.Run()
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// followUp sends the follow-up of run id with text and returns the run as
// it was just before (its log is printed from there). A refusal is an
// error that says why.
func (p *Program) followUp(ctx context.Context, s *Services, id, text string, limits *event.Limits, stdout io.Writer) (store.Run, error) {
	before, err := s.Store.GetRun(ctx, id)
	if err != nil {
		return store.Run{}, fmt.Errorf("run %q: %w", id, err)
	}
	res, err := s.Runs.Command(ctx, id, run.Command{CommandID: p.NewID("cmd"), Type: run.CmdFollowUp, Text: text, Limits: limits})
	if err != nil {
		return store.Run{}, err
	}
	if res.Status != "accepted" {
		return store.Run{}, fmt.Errorf("cannot continue run %s: %s", id, res.Message)
	}
	fmt.Fprintf(stdout, "run %s (%s), agent %s: follow-up\n  workspace %s\n", id, before.Status, before.AgentName, before.Workspace)
	return before, nil
}
