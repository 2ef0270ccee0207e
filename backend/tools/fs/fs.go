// Package fs holds the file tools offered to the model: read_file, list_dir,
// glob and grep, which read the workspace, and write_file, edit_file and
// apply_patch, which change it.
//
// Every call opens the workspace named by its tool.Env, checks the path with
// workspace.Resolve (for the model-facing message) and then does the I/O
// through an *os.Root on the resolved name, so a symlink swapped in between
// cannot lead the call outside the workspace. Before the call, each tool
// tells the permission policy the files it will open, resolved the same
// way (touch.go); list_dir, glob and grep leave out of their output what
// the run may not read (tool.Env.Withheld) and say how many they left out. glob and grep walk the tree
// through one *os.Root per directory and never follow symlinks. Failures the
// model can act on (no such file, outside the workspace, binary file, too
// large, a stale read) are results with one of the codes below; anything
// else is a Go error.
//
// Read before write: when the call's tool.Env has Files, read_file reports
// every file it read (whole content, also for a range of lines), and the
// tools that change files read the current content through the *os.Root,
// ask Files.CheckWrite whether the run may replace it, and report each
// change with Files.Changed. Between that check and the rename a person may
// still change the file: the window is one read and one write long, and the
// journal's watcher sees such a change.
//
// Writes are atomic: a temp file named .steward-*.tmp next to the target,
// renamed over it. A failed write removes its temp file; one left by a crash
// is hidden from list_dir, glob and grep.
//
// grep is the only tool that starts goroutines: a walker and GOMAXPROCS
// searchers per call, all ended and waited for before the call returns.
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
	CodeProtected    = "protected"
	// CodeStaleRead: the file exists and the run has not read it, or it
	// changed since; the message says to read it (again).
	CodeStaleRead = "stale_read"
	// CodeNoMatch: edit_file's old_string is not in the file.
	CodeNoMatch = "no_match"
	// CodeAmbiguous: edit_file's old_string occurs more than once.
	CodeAmbiguous = "ambiguous_match"
	// CodeInvalidPatch: apply_patch could not parse its patch.
	CodeInvalidPatch = "invalid_patch"
	// CodePatchConflict: a hunk of the patch does not apply to the file as
	// it is, or a file it creates exists, or one it changes does not.
	CodePatchConflict = "patch_does_not_apply"
	// CodeInvalidPattern: a glob or regular expression does not compile.
	CodeInvalidPattern = "invalid_pattern"
)

// Tools returns the file tools. They are confined to env.Workspace of each
// call, which they open per call: a workspace is a path, not a descriptor,
// so there is nothing to share between calls. Each is a tool.Toucher: it
// tells the policy the files a call will open (touch.go).
func Tools() []tool.Tool {
	return []tool.Tool{
		tool.WithTouches(tool.Must(tool.New("read_file", readDescription, tool.RiskRead, adapt(readFile))), readTouches),
		tool.WithTouches(tool.Must(tool.New("list_dir", listDescription, tool.RiskRead, adapt(listDir))), listTouches),
		tool.WithTouches(tool.Must(tool.New("glob", globDescription, tool.RiskRead, adapt(globFiles))), globTouches),
		tool.WithTouches(tool.Must(tool.New("grep", grepDescription, tool.RiskRead, adapt(grepFiles))), grepTouches),
		prechecked(tool.WithTouches(tool.Must(tool.New("write_file", writeDescription, tool.RiskWrite, adapt(writeFile))), writeTouches), writeFile),
		prechecked(tool.WithTouches(tool.Must(tool.New("edit_file", editDescription, tool.RiskWrite, adapt(editFile))), editTouches), editFile),
		prechecked(tool.WithTouches(tool.Must(tool.New("apply_patch", patchDescription, tool.RiskWrite, adapt(applyPatch))), patchTouches), applyPatch),
	}
}

// failure is a model-visible failure on its way out of a tool body.
type failure struct{ code, msg string }

func (f *failure) Error() string { return f.msg }

func fail(code, format string, args ...any) error {
	return &failure{code: code, msg: fmt.Sprintf(format, args...)}
}

// call is what a tool body knows of its call: the workspace, the run's
// record of files (nil: nothing is tracked, writes are not checked), and
// what the run may not see (nil: everything may be seen).
type call struct {
	ws       *workspace.Root
	files    tool.Files
	withheld func(tool.Touch) bool
	// dry, when set, makes a write body stop before its first change, its
	// checks done, and note there what it would change: the precheck and
	// the preview (precheck.go).
	dry *plan
}

// adapt turns a tool body, which returns the output or an error, into a
// tool.Typed function: a *failure becomes a model-visible result, a
// cancelled context a cancelled result (the registry then says why), any
// other error stays a Go error.
func adapt[A any](body func(ctx context.Context, c call, args A) (string, error)) func(context.Context, tool.Env, A) (tool.Result, error) {
	return func(ctx context.Context, env tool.Env, args A) (tool.Result, error) {
		ws, err := workspace.Open(env.Workspace)
		if err != nil {
			return tool.Result{}, err
		}
		out, err := body(ctx, call{ws: ws, files: env.Files, withheld: env.Withheld}, args)
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
