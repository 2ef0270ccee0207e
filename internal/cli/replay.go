package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"steward/backend/agent"
	"steward/backend/console"
	"steward/backend/recording"
	"steward/backend/replay"
	"steward/backend/run"
)

// Exit codes of `steward replay`.
const (
	replayOK       = 0
	replayFailed   = 1
	replayDiverged = 3
)

// replayCmd is `steward replay FILE`: the recorded run re-executed as a new
// run linked to its source, the model's answers taken from the recording.
// A file may come from anyone: it replays as a run of one of this
// machine's agents (--agent), in ask mode unless --mode says otherwise, and
// its tools' results come from the recording unless --tools live; the
// calls that then run for real, and the live model's, are asked on the
// terminal. It exits 0 when the replay ended as the recorded run did
// without diverging, 3 when it diverged, 1 when it could not run or ended
// otherwise.
func (p *Program) replayCmd(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("replay", flag.ContinueOnError)
	fl.SetOutput(stderr)
	tools := fl.String("tools", replay.ToolsRecorded, "recorded (their results come from the recording: nothing runs) or live (the tools run for real in the replay's workspace, each call that needs it asked here)")
	liveFrom := fl.Int("live-from", 0, "model call (from 1) from which the agent's real model answers instead of the recording")
	agentName := fl.String("agent", agent.DefaultName, "the agent of this machine to replay with (name or id): its provider, rules, tools and budgets; the recording's are never used")
	mode := fl.String("mode", "", "permission mode of the replay: ask (the default), edits, plan or auto")
	wsFlag := fl.String("workspace", "", "folder to replay in (default: a new folder under the data directory's replays/); the files the run changed are put back there as they were before it")
	nonEmpty := fl.Bool("allow-nonempty", false, "let --workspace hold files already: the recorded ones are put back over them")
	fl.Usage = func() {
		fmt.Fprint(stderr, "Usage: steward replay [--agent NAME] [--tools recorded|live] [--live-from N] [--mode MODE] [--workspace DIR [--allow-nonempty]] FILE.steward\n\n"+
			"Replay a recorded run as a new run linked to it. A recording is someone else's content: it replays as a run of\n"+
			"one of your agents, never with the recording's provider, base URL, model, mode, rules or folder. The model's\n"+
			"answers come from the recording, and each request is compared with the recorded one: the first difference is\n"+
			"reported. With the recorded tools nothing runs; with --tools live (or a live model) the calls are asked here.\n"+
			"Exits 0 when the replay ended as the recording did, 3 when it diverged, 1 on failure.\n\n")
		fl.PrintDefaults()
	}
	rest, code, ok := parseMixed(fl, args)
	if !ok {
		return code
	}
	if len(rest) != 1 || (*tools != replay.ToolsLive && *tools != replay.ToolsRecorded) || *liveFrom < 0 {
		fl.Usage()
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "steward replay:", err)
		return replayFailed
	}
	rec, err := readRecording(rest[0])
	if err != nil {
		return fail(err)
	}
	s, err := p.Build(getenv, stderr)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	ctx := context.Background()
	started, err := s.Replays.Start(ctx, rec, replay.Params{Tools: replay.ToolsMode(*tools), LiveFrom: *liveFrom, Workspace: *wsFlag, NonEmpty: *nonEmpty,
		Agent: *agentName, Mode: *mode})
	if err != nil {
		return fail(err)
	}
	if u := started.Prepared.Unknown; len(u) > 0 {
		fmt.Fprintf(stderr, "steward replay: the recording does not hold the content before the run of %v: left as they are\n", u)
	}
	r, provider := started.Run, started.Provider
	fmt.Fprintf(stdout, "replaying run %s as run %s of agent %s (mode %s) in %s (%d recorded model calls, tools %s)\n",
		rec.RunID, r.ID, r.AgentName, r.Mode, r.Workspace, rec.Steps(), *tools)
	var final replayStatus
	if *tools == replay.ToolsLive || *liveFrom > 0 {
		// Something runs for real: the person answers here, as in steward run.
		final, err = p.followReplay(ctx, s, r.ID, stdin, stdout, colorOutput(stdout, getenv))
	} else {
		final, err = p.waitReplay(ctx, s, s.Runs, r.ID, stderr)
	}
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "run %s %s", r.ID, final.Status)
	if final.Reason != "" {
		fmt.Fprintf(stdout, " (%s)", final.Reason)
	}
	fmt.Fprintln(stdout)
	if d, ok := provider.Divergence(); ok {
		fmt.Fprintln(stdout, "diverged at", d)
		return replayDiverged
	}
	if final.Status != rec.Status {
		fmt.Fprintf(stdout, "the recorded run ended %s\n", rec.Status)
		return replayFailed
	}
	fmt.Fprintln(stdout, "no divergence")
	return replayOK
}

// followReplay prints the replay's transcript and asks its approvals (and
// what to do when it pauses) on the terminal, as steward run does; Ctrl-C
// cancels it.
func (p *Program) followReplay(ctx context.Context, s *Services, id string, stdin io.Reader, stdout io.Writer, color bool) (replayStatus, error) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-sig:
			_, _ = s.Runs.Command(ctx, id, run.Command{CommandID: p.NewID("cmd"), Type: run.CmdCancel})
		case <-stop:
		}
	}()
	c := &console.Console{Out: stdout, In: stdin, Inbox: s.Inbox, Runs: s.Runs, Bus: s.Bus, Reader: s.Store,
		NewID: func() string { return p.NewID("cmd") }, Color: color}
	final, err := c.Follow(ctx, id)
	if err != nil {
		return replayStatus{}, err
	}
	if done := s.Runs.Done(id); done != nil {
		<-done
	}
	return replayStatus{final.Status, final.Reason}, nil
}

func readRecording(path string) (*replay.Recorded, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b, err := recording.Read(f, fi.Size(), recording.Limits{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return replay.Load(b)
}

// replayStatus is how a replay ended.
type replayStatus struct{ Status, Reason string }

// waitReplay waits until the run ends. Nobody is there to continue a
// replay, so a pause (a budget spent) cancels it; Ctrl-C cancels it too.
func (p *Program) waitReplay(ctx context.Context, s *Services, svc *run.Service, id string, stderr io.Writer) (replayStatus, error) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := svc.Done(id)
	if done == nil {
		// The run is driven here, so not being active means it has ended
		// already: a short replay may end before it is waited for.
		ended := make(chan struct{})
		close(ended)
		done = ended
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	reason, waits := "", 0
	for {
		select {
		case <-done:
			r, err := s.Store.GetRun(ctx, id)
			if reason == "" {
				reason = r.Reason
			}
			return replayStatus{r.Status, reason}, err
		case <-sig:
			reason = "interrupted"
			_, _ = svc.Command(ctx, id, run.Command{CommandID: p.NewID("cmd"), Type: run.CmdCancel})
		case <-tick.C:
			r, err := s.Store.GetRun(ctx, id)
			if err == nil && r.Status == string(run.Waiting) {
				waits++
			} else {
				waits = 0
			}
			if waits == 4 {
				// A call the recording did not ask for (the live model's)
				// waits for a person, as any run's does; a recorded one is
				// answered at once.
				fmt.Fprintf(stderr, "steward replay: run %s waits for an answer: answer it in Steward's inbox (steward serve), or press Ctrl-C\n", id)
			}
			if err == nil && r.Status == string(run.Paused) && reason == "" {
				reason = "paused (" + r.Reason + ") with nobody to continue it"
				_, _ = svc.Command(ctx, id, run.Command{CommandID: p.NewID("cmd"), Type: run.CmdCancel})
			}
		}
	}
}
