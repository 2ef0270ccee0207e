package run

// Status of a run.
type Status string

// Statuses. pausing and paused come with the runtime issue; the table below
// leaves room for them.
const (
	Queued    Status = "queued"
	Running   Status = "running"
	Waiting   Status = "waiting" // an approval is open
	Completed Status = "completed"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
)

// transitions is the legal-move table of the run state machine. Terminal
// statuses have no way out.
var transitions = map[Status][]Status{
	Queued:  {Running, Failed, Cancelled},
	Running: {Waiting, Completed, Failed, Cancelled},
	Waiting: {Running, Failed, Cancelled},
}

// CanTransition reports whether a run may go from one status to another.
func CanTransition(from, to Status) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Terminal reports whether s ends a run.
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

// Capabilities lists the commands that are legal for a run in status s.
func Capabilities(s Status) []string {
	if s.Terminal() {
		return []string{}
	}
	return []string{"cancel"}
}
