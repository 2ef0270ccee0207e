package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"steward/backend/run"
	"steward/backend/store"
)

// runsCmd is `steward runs`: this machine's runs, newest first, as a table
// a person reads (or a script cuts with awk: one run a line, tab-aligned).
func (p *Program) runsCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) (int, error) {
	fl := flag.NewFlagSet("runs", flag.ContinueOnError)
	fl.SetOutput(stderr)
	status := fl.String("status", "", "comma-separated statuses to list ("+statusNames()+")")
	agentName := fl.String("agent", "", "only the runs of this agent (name or id)")
	limit := fl.Int("limit", 20, "how many runs, newest first (at most 1000)")
	fl.Usage = func() {
		fmt.Fprint(stderr, "Usage: steward runs [--status S,S] [--agent NAME] [--limit N]\n\nList this machine's runs, newest first.\n\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, nil
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "steward runs: unexpected argument %q\n", fl.Arg(0))
		return 2, nil
	}
	var statuses []string
	for _, s := range strings.Split(*status, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !isStatus(s) {
			fmt.Fprintf(stderr, "steward runs: status %q is not one of %s\n", s, statusNames())
			return 2, nil
		}
		statuses = append(statuses, s)
	}
	if *limit < 1 || *limit > 1000 {
		fmt.Fprintf(stderr, "steward runs: --limit %d is not between 1 and 1000\n", *limit)
		return 2, nil
	}
	s, err := p.Build(getenv, stderr)
	if err != nil {
		return 1, err
	}
	defer s.Close()
	runs, err := s.Store.ListRuns(context.Background(), store.RunFilter{Statuses: statuses, Agent: *agentName, Limit: *limit})
	if err != nil {
		return 1, err
	}
	if len(runs) == 0 {
		fmt.Fprintln(stdout, "No runs.")
		return 0, nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATUS\tAGENT\tSTARTED\tSTEPS\tTOKENS\tINSTRUCTIONS")
	now := time.Now()
	for _, r := range runs {
		status := r.Status
		if r.PendingApprovals > 0 {
			status += fmt.Sprintf(" (%d pending)", r.PendingApprovals)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", r.ID, status, r.AgentName, ago(now, time.UnixMilli(r.CreatedAt)), r.Steps,
			r.InputTokens+r.OutputTokens, oneLine(r.Instructions, 60))
	}
	return 0, tw.Flush()
}

// agentsCmd is `steward agents`: the agents a run can use.
func (p *Program) agentsCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) (int, error) {
	fl := flag.NewFlagSet("agents", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprint(stderr, "Usage: steward agents\n\nList the agents `steward run --agent NAME` can run.\n")
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, nil
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "steward agents: unexpected argument %q\n", fl.Arg(0))
		return 2, nil
	}
	s, err := p.Build(getenv, stderr)
	if err != nil {
		return 1, err
	}
	defer s.Close()
	agents, err := s.Agents.List(context.Background())
	if err != nil {
		return 1, err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tMODEL\tMODE\tTOOLS\tDESCRIPTION")
	for _, a := range agents {
		model := string(a.Provider)
		if a.Model != "" {
			model += "/" + a.Model
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", a.Name, model, a.Mode, len(a.Tools), oneLine(a.Description, 60))
	}
	return 0, tw.Flush()
}

func isStatus(s string) bool {
	for _, st := range run.Statuses {
		if string(st) == s {
			return true
		}
	}
	return false
}

func statusNames() string {
	names := make([]string, len(run.Statuses))
	for i, st := range run.Statuses {
		names[i] = string(st)
	}
	return strings.Join(names, ", ")
}

// ago says how long ago t was, as a person says it.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Format("2006-01-02")
}

// oneLine is s on one line, cut at n runes; control characters (a terminal
// escape in a run's instructions) become spaces.
func oneLine(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == ' ' }), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
