package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"steward/backend/config"
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
// It exits 0 when the replay ended as the recorded run did without
// diverging, 3 when it diverged, 1 when it could not run or ended
// otherwise.
func replayCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("replay", flag.ContinueOnError)
	fl.SetOutput(stderr)
	tools := fl.String("tools", "live", "live (the tools run for real in the replay's workspace) or recorded (their results come from the recording)")
	liveFrom := fl.Int("live-from", 0, "model call (from 1) from which the agent's real model answers instead of the recording")
	wsFlag := fl.String("workspace", "", "folder to replay in (default: a new temporary folder); the files the run changed are put back there as they were before it")
	fl.Usage = func() {
		fmt.Fprint(stderr, "Usage: steward replay [--tools live|recorded] [--live-from N] [--workspace DIR] FILE.steward\n\n"+
			"Replay a recorded run as a new run linked to it. The model's answers come from the recording, and each request\n"+
			"is compared with the recorded one: the first difference is reported. Approvals and questions are answered as\n"+
			"recorded. Exits 0 when the replay ended as the recording did, 3 when it diverged, 1 on failure.\n\n")
		fl.PrintDefaults()
	}
	var rest []string // flags may come after the file, as people type them
	for len(args) > 0 {
		if err := fl.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fl.NArg() == 0 {
			break
		}
		rest = append(rest, fl.Arg(0))
		args = fl.Args()[1:]
	}
	if len(rest) != 1 || (*tools != "live" && *tools != "recorded") || *liveFrom < 0 {
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
	ws := *wsFlag
	if ws == "" {
		if ws, err = os.MkdirTemp("", "steward-replay-*"); err != nil {
			return fail(err)
		}
	}
	prep, err := replay.PrepareWorkspace(rec, ws)
	if err != nil {
		return fail(err)
	}
	if len(prep.Unknown) > 0 {
		fmt.Fprintf(stderr, "steward replay: the recording does not hold the content before the run of %v: left as they are\n", prep.Unknown)
	}
	s, err := build(getenv, stderr)
	if err != nil {
		return fail(err)
	}
	defer s.close()
	ctx := context.Background()
	opts := replay.Options{LiveFrom: *liveFrom}
	if *liveFrom > 0 {
		m, err := s.models.Resolve(ctx, rec.Agent)
		if err != nil {
			return fail(fmt.Errorf("--live-from: the agent's model: %w", err))
		}
		opts.Live = m.Provider
	}
	p := replay.NewProvider(rec, opts)
	var rt run.Tools = s.tools
	if *tools == "recorded" {
		// After --live-from the live model's calls have no recording: they
		// run for real, in the workspace the recorded changes were written to.
		rt = replay.NewTools(rec, s.tools, replay.ToolsOptions{Provider: p, Live: *liveFrom > 0})
	}
	// A run.Service of its own for this run, over the same store: the
	// model, tools and approver are the replay's. Grants and global rules
	// are left out: the recorded agent's rules already hold the ones in
	// force then, and a grant saved since would decide differently.
	svc := run.New(run.Config{Store: s.store, Approver: replay.NewApprover(rec, s.inbox), Tools: rt, Models: replay.Models(rec, p),
		NewID: newID, Logf: s.logger.Printf, Price: config.NewPrices(s.cfg.Prices).Cost, Blobs: s.blobs, Artifacts: s.cfg.ArtifactsDir()})
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := svc.Shutdown(sctx); err != nil {
			s.logger.Printf("stop the replay: %v", err)
		}
	}()
	r, err := svc.Start(ctx, rec.StartParams(ws))
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "replaying run %s as run %s in %s (%d recorded model calls, tools %s)\n", rec.RunID, r.ID, ws, rec.Steps(), *tools)
	final, err := waitReplay(ctx, s, svc, r.ID)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "run %s %s", r.ID, final.Status)
	if final.Reason != "" {
		fmt.Fprintf(stdout, " (%s)", final.Reason)
	}
	fmt.Fprintln(stdout)
	if d, ok := p.Divergence(); ok {
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
func waitReplay(ctx context.Context, s *services, svc *run.Service, id string) (replayStatus, error) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := svc.Done(id)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	reason := ""
	for {
		select {
		case <-done:
			r, err := s.store.GetRun(ctx, id)
			if reason == "" {
				reason = r.Reason
			}
			return replayStatus{r.Status, reason}, err
		case <-sig:
			reason = "interrupted"
			_, _ = svc.Command(ctx, id, run.Command{CommandID: newID("cmd"), Type: run.CmdCancel})
		case <-tick.C:
			r, err := s.store.GetRun(ctx, id)
			if err == nil && r.Status == string(run.Paused) && reason == "" {
				reason = "paused (" + r.Reason + ") with nobody to continue it"
				_, _ = svc.Command(ctx, id, run.Command{CommandID: newID("cmd"), Type: run.CmdCancel})
			}
		}
	}
}
