package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// probeTimeout bounds the probe: bwrap starts in a few milliseconds, and
// one that hangs is as good as broken.
const probeTimeout = 10 * time.Second

// Command is a program to run in the sandbox.
type Command struct {
	Path string   // the program, absolute
	Args []string // its arguments, without the program's name
	// Dir is the working directory: the workspace or a folder inside it.
	Dir string
	// Env is the program's whole environment (Env gives the allowlisted
	// one); Wrap moves what must live in the private /tmp there.
	Env []string
	// Workspace is the folder the program may change, absolute and with
	// its links resolved.
	Workspace string
	// Network gives the program the machine's network.
	Network bool
	// ReadOnly are folders and files of the private /tmp (or /var/tmp)
	// the program needs, seen read-only where they are: where an MCP
	// server's program lives, when it lives there. One inside a hidden
	// path is not seen (a secret stays hidden whoever names it), and a
	// hidden path inside one stays hidden.
	ReadOnly []string
	// DieWithParent ends the whole sandbox when bwrap ends (SIGKILL of
	// everything in it): for a program that Steward stops by closing its
	// input and then signalling it alone (an MCP server), not by its
	// process group, so that nothing of it outlives its stop.
	DieWithParent bool
}

// cacheDir is where a sandboxed command finds its caches (XDG_CACHE_HOME).
const cacheDir = "/tmp/.cache"

// Wrap returns c as bwrap runs it in the sandbox: Path is bwrap, Args its
// options and then c's program and arguments. Env points TMPDIR into the
// private /tmp and the caches (XDG_CACHE_HOME, GOCACHE) into /tmp/.cache,
// so that tools which keep a cache in the home folder work although it is
// read-only, and no command leaves a cache behind that a build outside the
// sandbox would trust. With Options.Caches, /tmp/.cache is the workspace's
// own folder there, kept from one command to the next. The error wraps
// ErrUnavailable when the sandbox cannot work here.
func (s *Sandbox) Wrap(c Command) (Command, error) {
	if err := s.Available(); err != nil {
		return Command{}, err
	}
	if !filepath.IsAbs(c.Path) || !filepath.IsAbs(c.Workspace) || !filepath.IsAbs(c.Dir) {
		return Command{}, fmt.Errorf("sandbox: program %q, workspace %q and folder %q must be absolute", c.Path, c.Workspace, c.Dir)
	}
	for _, p := range c.ReadOnly {
		if !filepath.IsAbs(p) {
			return Command{}, fmt.Errorf("sandbox: read-only path %q must be absolute", p)
		}
	}
	cache, err := s.cacheFor(c.Workspace)
	if err != nil {
		return Command{}, err
	}
	out := c
	out.Path = s.bwrap
	out.Args = s.args(c, cache)
	out.Env = sandboxEnv(c.Env)
	return out, nil
}

// cacheFor is the workspace's cache folder under Options.Caches, made when
// missing; "" without Options.Caches. Each workspace has its own: what a
// command leaves there reaches only later commands of the same workspace,
// which it could change anyway, never another workspace's builds.
func (s *Sandbox) cacheFor(workspace string) (string, error) {
	if s.o.Caches == "" {
		return "", nil
	}
	sum := sha256.Sum256([]byte(workspace))
	dir := filepath.Join(s.o.Caches, hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: make the workspace's cache folder: %w", err)
	}
	return dir, nil
}

// sandboxEnv is env with TMPDIR and the caches in the private /tmp.
func sandboxEnv(env []string) []string {
	set := map[string]string{
		"TMPDIR":         "/tmp",
		"XDG_CACHE_HOME": cacheDir,
		"GOCACHE":        cacheDir + "/go-build",
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// mount is one bwrap option that mounts something at path.
type mount struct {
	path string
	rank int // among mounts of the same depth: what must come first
	args []string
}

// Ranks of mounts at the same depth. A private /tmp comes before a
// workspace that is /tmp itself; the workspace before a hidden path that is
// the workspace itself, so that a secret wins.
const (
	rankTmp = iota
	rankReadOnly
	rankWorkspace
	rankHide
	rankHome
)

// args returns bwrap's options for c, then c's program and arguments.
//
// Mounts are made in order of depth, parents before what lies inside them:
// the read-only root, then the private /tmp, the hidden paths and the
// workspace, each after any of the others that contains it. So a workspace
// inside a hidden folder (a replay's, under the data directory) is still
// there, and a hidden folder inside the workspace (the workspace is the
// home folder, with its .ssh) is still hidden.
func (s *Sandbox) args(c Command, cache string) []string {
	fi, err := os.Stat("/var/tmp")
	return bwrapArgs(c, s.hidden(), cache, err == nil && fi.IsDir())
}

// bwrapArgs is args for the paths hid, with the folder cache (if any) at
// /tmp/.cache and a private /var/tmp when varTmp.
func bwrapArgs(c Command, hid []hidden, cache string, varTmp bool) []string {
	a := []string{
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		// Root or not, the command gets no capability: with one it could
		// unmount what hides a secret.
		"--cap-drop", "ALL",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
	}
	if !c.Network {
		a = append(a, "--unshare-net")
	}
	if c.DieWithParent {
		a = append(a, "--die-with-parent")
	}
	mounts := []mount{
		{"/tmp", rankTmp, []string{"--tmpfs", "/tmp"}},
		{c.Workspace, rankWorkspace, []string{"--bind", c.Workspace, c.Workspace}},
	}
	if cache != "" {
		mounts = append(mounts, mount{cacheDir, rankWorkspace, []string{"--bind", cache, cacheDir}})
	}
	if varTmp {
		mounts = append(mounts, mount{"/var/tmp", rankTmp, []string{"--tmpfs", "/var/tmp"}})
	}
	var shown []string // the read-only paths of the private /tmp, none inside a hidden path
	for _, p := range c.ReadOnly {
		p = filepath.Clean(p)
		secret := slices.ContainsFunc(hid, func(h hidden) bool { return within(p, h.path) })
		if secret || !(within(p, "/tmp") || within(p, "/var/tmp")) {
			continue // a secret is never shown; outside /tmp, it is there read-only already
		}
		shown = append(shown, p)
		mounts = append(mounts, mount{p, rankReadOnly, []string{"--ro-bind", p, p}})
	}
	var mounted []hidden // the hidden paths that need a mount to be hidden
	for _, h := range hid {
		inShown := slices.ContainsFunc(shown, func(p string) bool { return within(h.path, p) })
		if (within(h.path, "/tmp") || within(h.path, "/var/tmp")) && !within(h.path, c.Workspace) && !inShown {
			continue // the private /tmp hides it already
		}
		mounted = append(mounted, h)
		if h.dir {
			mounts = append(mounts, mount{h.path, rankHide, []string{"--tmpfs", h.path}})
		} else {
			mounts = append(mounts, mount{h.path, rankHide, []string{"--ro-bind", "/dev/null", h.path}})
		}
	}
	// A home folder inside a hidden folder or the private /tmp would be
	// missing: an empty one takes its place, so that programs which look
	// it up still find it.
	if home := homeOf(c.Env); home != "" && !within(home, c.Workspace) {
		gone := within(home, "/tmp") || within(home, "/var/tmp")
		for _, h := range mounted {
			gone = gone || (h.dir && within(home, h.path))
		}
		if gone {
			mounts = append(mounts, mount{home, rankHome, []string{"--dir", home}})
		}
	}
	slices.SortStableFunc(mounts, func(x, y mount) int {
		if d := depth(x.path) - depth(y.path); d != 0 {
			return d
		}
		return x.rank - y.rank
	})
	for _, m := range mounts {
		a = append(a, m.args...)
	}
	a = append(a, "--chdir", c.Dir, "--", c.Path)
	return append(a, c.Args...)
}

// depth is the number of names in an absolute path: 0 for "/".
func depth(p string) int {
	p = filepath.Clean(p)
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

// homeOf is HOME in env, when absolute.
func homeOf(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok && filepath.IsAbs(v) {
			return filepath.Clean(v)
		}
	}
	return ""
}

// probe finds bwrap and runs true in a sandbox made as for a real command,
// with the network off and a workspace in /tmp (the hardest case: it must
// be mounted again over the private /tmp).
func (s *Sandbox) probe() (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("%w: commands are sandboxed on Linux only (with bubblewrap), and this is %s", ErrUnavailable, runtime.GOOS)
	}
	bw := s.o.Bwrap
	if bw == "" {
		p, err := exec.LookPath("bwrap")
		if err != nil {
			return "", fmt.Errorf("%w: bubblewrap is not installed (on Debian and Ubuntu: apt-get install bubblewrap)", ErrUnavailable)
		}
		bw = p
	}
	if p, err := exec.LookPath(bw); err != nil {
		return "", fmt.Errorf("%w: bubblewrap is not at %s", ErrUnavailable, bw)
	} else if bw, err = filepath.Abs(p); err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		return "", fmt.Errorf("%w: no true program to try bubblewrap with: %v", ErrUnavailable, err)
	}
	if truePath, err = filepath.Abs(truePath); err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	dir, err := os.MkdirTemp("", "steward-sandbox-probe-")
	if err != nil {
		return "", fmt.Errorf("%w: make a folder to try bubblewrap in: %v", ErrUnavailable, err)
	}
	defer os.RemoveAll(dir)
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bw, s.args(Command{Path: truePath, Dir: dir, Workspace: dir}, "")...)
	cmd.Env = Env()
	out, err := cmd.CombinedOutput()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "", fmt.Errorf("%w: bubblewrap did not start a sandbox within %s", ErrUnavailable, probeTimeout)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrUnavailable, explainProbe(bw, out, err))
	}
	return bw, nil
}

// explainProbe says why bwrap failed, from what it printed.
func explainProbe(bw string, out []byte, err error) string {
	msg := string(bytes.TrimSpace(out))
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		msg = err.Error()
	}
	why := fmt.Sprintf("%s failed: %s", bw, msg)
	lower := strings.ToLower(msg)
	if strings.Contains(lower, "namespace") || strings.Contains(lower, "operation not permitted") || strings.Contains(lower, "permission denied") {
		why += " (the kernel or the container forbids the namespaces bubblewrap needs: allow unprivileged user namespaces, " +
			"e.g. sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu, " +
			"or give the container the right to create them)"
	}
	return why
}
