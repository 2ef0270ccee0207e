package run

import (
	"encoding/json"
	"fmt"
	"slices"

	"steward/backend/event"
	"steward/backend/store"
)

// Situation is what decides which commands a run takes now: its status,
// what a paused run does next, and whether it is a recording's.
type Situation struct {
	RunID  string
	Status Status
	// Next is what a paused run does when it goes on (its last run.status
	// says): a tool call interrupted by a crash waits for retry, skip or
	// cancel instead of continue or step.
	Next *event.Next
	// Imported is a run imported from a recording: history, read-only; it
	// can only be forked.
	Imported bool
	// Replay is a replay of a recording: its model and tools were the
	// recording's, which no later turn has, so it takes no follow-up.
	Replay bool
}

// SituationOf is the situation of r as the store holds it: its status and
// next action as of its last committed run.status. A run this process
// drives may be a step ahead in memory; Command decides by that.
func SituationOf(r store.Run) Situation {
	s := Situation{RunID: r.ID, Status: Status(r.Status), Imported: r.ImportedFrom != "", Replay: r.ReplayOf != ""}
	if r.Next != "" {
		var n event.Next
		if json.Unmarshal([]byte(r.Next), &n) == nil {
			s.Next = &n
		}
	}
	return s
}

// Refusal is why a command cannot apply in a situation: the code and the
// message Command rejects it with.
type Refusal struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// interrupted reports whether s is a paused run waiting for a decision on
// an interrupted tool call.
func (s Situation) interrupted() bool {
	return s.Status == Paused && s.Next != nil && s.Next.Interrupted
}

// onInterrupted says how a paused run's interrupted call bears on a
// command that is legal when paused.
type onInterrupted int

const (
	eitherWay       onInterrupted = iota // legal whether or not the call was interrupted
	notInterrupted                       // refused while the call waits for a decision
	onlyInterrupted                      // legal only then: the decision itself
)

// rule is when one command is legal.
type rule struct {
	cmd         string
	in          []Status
	interrupted onInterrupted
	// why words the refusal in a status not in in (or, for
	// onlyInterrupted, with no interrupted call); nil when in holds
	// every status a refusal could not already explain.
	why func(cmd string, s Situation) string
}

// live is every status of a run that has not ended; ended every other.
var (
	live  = []Status{Queued, Running, Pausing, Waiting, Paused}
	ended = []Status{Completed, Failed, Cancelled}
)

// legality is every command's rule, in the order Capabilities lists them:
// the statuses it is legal in, how an interrupted call bears on it, and why
// it is refused in any other status (a terminal status not in in is
// refused alike for every command, by Refusal, and so are recordings, for
// every command but fork). Capabilities
// offers exactly what this allows and Command checks it before anything
// else about the run's state, so the two cannot disagree.
var legality = []rule{
	// A queued run takes the pause at its first safe point; a pausing
	// one has it already.
	{CmdPause, []Status{Queued, Running, Waiting}, eitherWay,
		func(_ string, s Situation) string { return fmt.Sprintf("the run is already %s", s.Status) }},
	{CmdContinue, []Status{Paused}, notInterrupted, needsPaused},
	{CmdStep, []Status{Paused}, notInterrupted, needsPaused},
	{CmdRetry, []Status{Paused}, onlyInterrupted, needsInterrupted},
	{CmdSkip, []Status{Paused}, onlyInterrupted, needsInterrupted},
	// A queued run has not read its instructions yet: nothing to steer.
	{CmdSteer, []Status{Running, Pausing, Paused, Waiting}, eitherWay,
		func(_ string, s Situation) string {
			return fmt.Sprintf("steer needs a running or paused run; this one is %s", s.Status)
		}},
	{CmdCancel, live, eitherWay, nil},
	// A fork goes on from a node that finished: an ended run can be
	// forked, a queued one has not started.
	{CmdFork, []Status{Running, Pausing, Waiting, Paused, Completed, Failed, Cancelled}, eitherWay,
		func(_ string, s Situation) string {
			return fmt.Sprintf("fork goes on from a node that finished; this run is %s and has not started", s.Status)
		}},
	{CmdBreak, live, eitherWay, nil},
	{CmdUnbreak, live, eitherWay, nil},
	// A live run reads a person's message as a steer; a follow-up opens a
	// new turn of a run that ended.
	{CmdFollowUp, ended, eitherWay,
		func(_ string, s Situation) string {
			return fmt.Sprintf("follow_up continues a run that ended; this one is %s: steer it instead, steer is for live runs", s.Status)
		}},
}

func needsPaused(cmd string, s Situation) string {
	return fmt.Sprintf("%s needs a paused run; this one is %s", cmd, s.Status)
}

func needsInterrupted(cmd string, _ Situation) string {
	return fmt.Sprintf("%s applies to an interrupted tool call of a paused run; there is none", cmd)
}

// Commands lists every command type, in the order of the legality table.
var Commands = func() []string {
	out := make([]string, len(legality))
	for i, l := range legality {
		out[i] = l.cmd
	}
	return out
}()

// Refusal returns why cmd cannot apply in s, or nil when it is legal. It
// decides by the situation alone; Command then checks what only the moment
// knows (a budget that ran out, the node a retry names, the agent's tools
// for a breakpoint, an engine that drives the run).
func (s Situation) Refusal(cmd string) *Refusal {
	i := slices.IndexFunc(legality, func(l rule) bool { return l.cmd == cmd })
	if i < 0 {
		return &Refusal{Code: CodeUnsupported, Message: fmt.Sprintf("%s is not supported", cmd)}
	}
	l := legality[i]
	switch {
	case s.Imported && cmd != CmdFork: // a recording goes on only as a fork
		return &Refusal{Code: CodeInvalidState, Message: fmt.Sprintf("run %s was imported from a recording and is read-only: fork it from a node to go on from there", s.RunID)}
	case s.Replay && cmd == CmdFollowUp:
		return &Refusal{Code: CodeInvalidState, Message: fmt.Sprintf("run %s is a replay: its model and tools were a recording's, which a new turn would not have; fork it from a node to go on with the live model", s.RunID)}
	case s.Status.Terminal() && !slices.Contains(l.in, s.Status) && cmd == CmdSteer:
		return &Refusal{Code: CodeTerminal, Message: fmt.Sprintf("the run is already %s: send a follow-up (follow_up) to go on with a new turn", s.Status)}
	case s.Status.Terminal() && !slices.Contains(l.in, s.Status):
		return &Refusal{Code: CodeTerminal, Message: fmt.Sprintf("the run is already %s", s.Status)}
	case !slices.Contains(l.in, s.Status):
		return &Refusal{Code: CodeInvalidState, Message: l.why(cmd, s)}
	case l.interrupted == notInterrupted && s.interrupted():
		return &Refusal{Code: CodeInvalidState, Message: fmt.Sprintf("%s (node %s) was interrupted: retry it, skip it or cancel the run", s.Next.Tool, s.Next.NodeID)}
	case l.interrupted == onlyInterrupted && !s.interrupted():
		return &Refusal{Code: CodeInvalidState, Message: l.why(cmd, s)}
	}
	return nil
}

// Capabilities lists the commands that are legal in s, in the order of
// Commands.
func (s Situation) Capabilities() []string {
	var out []string
	for _, l := range legality {
		if s.Refusal(l.cmd) == nil {
			out = append(out, l.cmd)
		}
	}
	return out
}

// Refusals says, for every command that is not legal in s, why not.
func (s Situation) Refusals() map[string]Refusal {
	out := map[string]Refusal{}
	for _, l := range legality {
		if r := s.Refusal(l.cmd); r != nil {
			out[l.cmd] = *r
		}
	}
	return out
}

// Capabilities lists the commands that are legal for a run in status s
// that is not a recording's; interrupted says that a paused run waits for a
// decision on an interrupted tool call (retry, skip or cancel) rather than
// for continue or step.
func Capabilities(s Status, interrupted bool) []string {
	return Situation{Status: s, Next: &event.Next{Kind: actTool, Interrupted: interrupted}}.Capabilities()
}
