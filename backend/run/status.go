package run

import "slices"

// Status of a run.
//
// The state machine (every legal move; anything else is a bug):
//
//	queued  → running | paused | failed | cancelled
//	running → pausing | paused | waiting | completed | failed | cancelled
//	pausing → paused | completed | failed | cancelled
//	waiting → running | pausing | paused | failed | cancelled
//	paused  → running | paused | failed | cancelled
//	completed | failed | cancelled → running
//
// completed, failed and cancelled are terminal: they end the run's turn,
// and nothing drives the run after them. The one way out of them is a
// follow-up (CmdFollowUp): a person's message that opens a new turn of the
// same run, so the run goes back to running. running → paused is a
// breakpoint or the end of a step; queued → paused is a fork, which starts
// paused; pausing → completed is a pause asked while the model's last answer
// was on its way; waiting → paused and paused → paused happen when a run is
// resumed after a restart (reason recovered).
type Status string

// Statuses.
const (
	Queued    Status = "queued"
	Running   Status = "running"
	Pausing   Status = "pausing" // a pause was asked; the run stops at its next safe point
	Paused    Status = "paused"  // stopped at a safe point; Next says what comes next
	Waiting   Status = "waiting" // an approval is open
	Completed Status = "completed"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
)

// Statuses lists every status, in the order of the table above.
var Statuses = []Status{Queued, Running, Pausing, Waiting, Paused, Completed, Failed, Cancelled}

var transitions = map[Status][]Status{
	Queued:  {Running, Paused, Failed, Cancelled},
	Running: {Pausing, Paused, Waiting, Completed, Failed, Cancelled},
	Pausing: {Paused, Completed, Failed, Cancelled},
	Waiting: {Running, Pausing, Paused, Failed, Cancelled},
	Paused:  {Running, Paused, Failed, Cancelled},
	// A follow-up, and nothing else (see followUp): a new turn.
	Completed: {Running},
	Failed:    {Running},
	Cancelled: {Running},
}

// CanTransition reports whether a run may go from one status to another.
func CanTransition(from, to Status) bool { return slices.Contains(transitions[from], to) }

// Terminal reports whether s ends a run's turn: nothing drives the run
// then, and only a follow-up (a new turn) or a fork goes on from it.
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

// Command types. Which one is legal when is the table of legal.go.
const (
	CmdPause    = "pause"
	CmdContinue = "continue"
	CmdStep     = "step"
	CmdSteer    = "steer"
	CmdCancel   = "cancel"
	CmdFork     = "fork"
	CmdRetry    = "retry"
	CmdSkip     = "skip"
	// CmdBreak adds a breakpoint: the run pauses before every call of the
	// command's tool (as the agent's break_before); CmdUnbreak removes it.
	CmdBreak   = "break"
	CmdUnbreak = "unbreak"
	// CmdFollowUp continues a run that ended (completed, failed or
	// cancelled) with the command's text, as in a chat: a new turn of the
	// same run, whose budgets count every turn. CmdContinue is something
	// else: a paused run going on.
	CmdFollowUp = "follow_up"
)
