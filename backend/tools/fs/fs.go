// Package fs holds the file tools offered to the model: read_file,
// write_file and list_dir.
//
// Every call opens the workspace named by its tool.Env, checks the path with
// workspace.Resolve (for the model-facing message) and then does the I/O
// through an *os.Root on the resolved name, so a symlink swapped in between
// cannot lead the call outside the workspace. Failures the model can act on
// (no such file, outside the workspace, binary file, too large) are results
// with one of the codes below; anything else is a Go error.
package fs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"steward/backend/tool"
	"steward/backend/workspace"
)

// Codes of model-visible failures, besides tool.CodeInvalidArguments for
// arguments that pass the schema but make no sense (end_line < start_line).
const (
	CodeNotFound     = "not_found"
	CodeOutside      = "outside_workspace"
	CodeInvalidPath  = "invalid_path"
	CodePermission   = "permission_denied"
	CodeIsDirectory  = "is_directory"
	CodeNotDirectory = "not_directory"
	CodeNotRegular   = "not_regular_file"
	CodeBinary       = "binary_file"
	CodeTooLarge     = "too_large"
)

// Tools returns the file tools. They are confined to env.Workspace of each
// call, which they open per call: a workspace is a path, not a descriptor,
// so there is nothing to share between calls.
func Tools() []tool.Tool {
	return []tool.Tool{
		tool.Must(tool.New("read_file", readDescription, tool.RiskRead, adapt(readFile))),
		tool.Must(tool.New("write_file", writeDescription, tool.RiskWrite, adapt(writeFile))),
		tool.Must(tool.New("list_dir", listDescription, tool.RiskRead, adapt(listDir))),
	}
}

// failure is a model-visible failure on its way out of a tool body.
type failure struct{ code, msg string }

func (f *failure) Error() string { return f.msg }

func fail(code, format string, args ...any) error {
	return &failure{code: code, msg: fmt.Sprintf(format, args...)}
}

// adapt turns a tool body, which returns the output or an error, into a
// tool.Typed function: a *failure becomes a model-visible result, a
// cancelled context a cancelled result (the registry then says why), any
// other error stays a Go error.
func adapt[A any](body func(ctx context.Context, ws *workspace.Root, args A) (string, error)) func(context.Context, tool.Env, A) (tool.Result, error) {
	return func(ctx context.Context, env tool.Env, args A) (tool.Result, error) {
		ws, err := workspace.Open(env.Workspace)
		if err != nil {
			return tool.Result{}, err
		}
		out, err := body(ctx, ws, args)
		var f *failure
		switch {
		case errors.As(err, &f):
			return tool.Errorf(f.code, f.msg), nil
		case err != nil && ctx.Err() != nil:
			return tool.Errorf(tool.CodeCancelled, "cancelled"), nil
		case err != nil:
			return tool.Result{}, err
		}
		return tool.Result{Output: out}, nil
	}
}

// resolve checks p and returns its name relative to the root, for the
// *os.Root and for messages.
func resolve(ws *workspace.Root, p string) (string, error) {
	abs, err := ws.Resolve(p)
	if err != nil {
		return "", classify(err, p)
	}
	return ws.Rel(abs)
}

// classify turns an error about the file name into a failure the model can
// act on, or returns it wrapped when it is the system's.
func classify(err error, name string) error {
	switch {
	case errors.Is(err, workspace.ErrOutside):
		return &failure{code: CodeOutside, msg: err.Error()}
	case errors.Is(err, workspace.ErrInvalidPath):
		return &failure{code: CodeInvalidPath, msg: err.Error()}
	case errors.Is(err, fs.ErrNotExist):
		return fail(CodeNotFound, "%s does not exist in the workspace; list_dir shows what a directory holds", name)
	case errors.Is(err, fs.ErrPermission):
		return fail(CodePermission, "permission denied: %s", name)
	case errors.Is(err, syscall.ENOTDIR):
		return fail(CodeNotDirectory, "a parent of %s is a file, not a directory", name)
	case errors.Is(err, syscall.EISDIR):
		return fail(CodeIsDirectory, "%s is a directory", name)
	}
	// Among the rest is the *os.Root refusing a symlink that was swapped in
	// after Resolve: an attack, recorded as a system failure.
	return fmt.Errorf("%s: %w", name, err)
}

// count formats n with its noun, singular or plural.
func count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// kind names the type of a file that is neither regular nor a directory.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
