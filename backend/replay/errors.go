package replay

import (
	"errors"
	"fmt"

	"steward/backend/run"
)

// ErrInvalid is wrapped by a replay that cannot start as asked: a
// parameter it does not take, a recording it cannot replay (ErrUnsupported,
// ErrRefused), a folder or an agent that will not do. A replay is a request
// to start a run, so it is run.ErrInvalid itself: one sentinel, of kind
// fault.Invalid, which the API answers 400.
var ErrInvalid = run.ErrInvalid

// ErrRefused is wrapped by the refusal of a replay for what its recording
// would write (a path outside the folder, in .git) or for the folder it
// would be written in (not empty, a link on the way): nothing was written.
var ErrRefused = errors.New("replay refused")

// refusal is an error that is ErrRefused, with the reason alone as its
// text, so that it reads well after what the caller puts in front.
type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

func refused(format string, args ...any) error { return &refusal{msg: fmt.Sprintf(format, args...)} }
