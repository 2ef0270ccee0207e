// Package sandbox confines the programs Steward starts for a run.
//
// Every such program (a command, git, Chromium, ffmpeg) starts with Env: an
// allowlist of the server's environment that holds no API key and no token.
//
// On Linux, the commands of run_command run inside bubblewrap (bwrap), where
// they see:
//   - the file system read-only, but for the workspace (read-write) and a
//     private /tmp and /var/tmp, empty at the start and gone at the end,
//     but for /tmp/.cache, where the caches go (XDG_CACHE_HOME, GOCACHE):
//     the workspace's own cache folder, kept between its commands, when
//     Options.Caches is set;
//   - in place of the folders and files that hold secrets, an empty folder
//     or file: the data directory (database, token, blobs, config.json with
//     stored keys), the person's credential folders and files (Credentials:
//     ~/.ssh, ~/.aws, ~/.config/gh, ...), and the sockets that lead out of
//     the sandbox (every user's runtime folder under /run/user, with the
//     session bus and the SSH and GPG agents; Docker's and containerd's
//     sockets; mounted service-account secrets);
//   - a PID namespace of their own: no process of Steward or of the person
//     is visible, and /proc shows the command's processes alone;
//   - IPC, UTS and cgroup namespaces of their own;
//   - no network (a network namespace with nothing but its own loopback)
//     unless the settings allow it;
//   - no capabilities (also when Steward runs as root) and no new privileges:
//     a setuid program raises none.
//
// Settings: sandbox is auto (the default: on wherever bubblewrap works), on
// (commands that cannot be sandboxed are refused) or off (commands run as
// the server's user, seeing what it sees: a documented risk); network is off
// (the default) or on. State says what becomes of a run's commands under its
// settings on this machine; the engine asks the person about every command
// that auto cannot sandbox, whatever the permission mode.
//
// Whether bwrap works is tried once, by running a trivial command under the
// same options as a real one; the answer, with its reason, is kept for the
// life of the process.
//
// Stopping: the command's process group gets SIGTERM, then SIGKILL (see
// shell.Exec), inside the sandbox as outside. bwrap is the group's leader and
// dies of the SIGTERM; its init process (PID 1 of the namespace, which a
// signal from outside cannot kill short of SIGKILL) stays, so the command's
// processes have their grace to end, and the SIGKILL that follows takes the
// init, and with it, by the kernel's hand, every process left in the
// namespace, also those that started a session of their own. --die-with-parent
// is not used: it would make bwrap's death at the SIGTERM kill the whole
// namespace at once, with no grace. A command thus outlives a Steward that
// crashed, as it would outside the sandbox.
package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"steward/backend/event"
)

// Sandbox modes: the setting "sandbox" of an agent or a run.
const (
	ModeAuto = event.SandboxAuto // sandboxed where bubblewrap works; elsewhere every command asks
	ModeOn   = event.SandboxOn   // sandboxed, or refused
	ModeOff  = event.SandboxOff  // never sandboxed: commands see what the server's user sees
)

// Modes lists the sandbox modes, for validation and messages.
var Modes = []string{ModeAuto, ModeOn, ModeOff}

// Network settings: the setting "sandbox_network" of an agent or a run.
const (
	NetworkOff = event.NetworkOff // no network, loopback included
	NetworkOn  = event.NetworkOn  // the machine's network
)

// Networks lists the network settings.
var Networks = []string{NetworkOff, NetworkOn}

// Settings are the sandbox settings of an agent or a run. Empty fields read
// as the defaults: mode auto, network off.
type Settings struct {
	Mode    string
	Network string
}

// EffectiveMode is the mode, auto when none is set.
func (s Settings) EffectiveMode() string {
	if s.Mode == "" {
		return ModeAuto
	}
	return s.Mode
}

// EffectiveNetwork is the network setting, off when none is set.
func (s Settings) EffectiveNetwork() string {
	if s.Network == "" {
		return NetworkOff
	}
	return s.Network
}

// Validate names the setting that is wrong; the error wraps ErrInvalid.
func (s Settings) Validate() error {
	if !slices.Contains(Modes, s.EffectiveMode()) {
		return fmt.Errorf("%w: sandbox %q is not one of %s", ErrInvalid, s.Mode, strings.Join(Modes, ", "))
	}
	if !slices.Contains(Networks, s.EffectiveNetwork()) {
		return fmt.Errorf("%w: sandbox_network %q is not one of %s", ErrInvalid, s.Network, strings.Join(Networks, ", "))
	}
	return nil
}

// State is what becomes of a run's commands under its settings on this
// machine.
type State struct {
	Mode    string // auto, on or off
	Network bool   // the network is on (it matters only when Confined)
	// Confined means commands run in the sandbox.
	Confined bool
	// Refused means mode on, on a machine where the sandbox cannot work:
	// commands are refused.
	Refused bool
	// Reason says why commands are not confined; empty when they are.
	Reason string
}

// Missing reports whether commands run outside the sandbox although the
// settings want it where it works: mode auto on a machine where it does not.
// Such commands always ask.
func (st State) Missing() bool { return !st.Confined && st.Mode == ModeAuto }

// Options configure a Sandbox.
type Options struct {
	// Bwrap is the bubblewrap program; empty looks for bwrap on PATH.
	Bwrap string
	// Hide lists folders and files that commands must not see besides the
	// credentials (see Credentials): the data directory.
	Hide []string
	// Caches is a folder where each workspace gets a cache folder of its
	// own (Go's build cache, pip's, ...), mounted at /tmp/.cache and kept
	// from one command to the next; empty gives each command an empty one.
	Caches string
	// Getenv reads the server's environment for HOME, XDG_CONFIG_HOME and
	// the variables that name credential files (see Credentials); nil is
	// os.Getenv.
	Getenv func(string) string
}

// Sandbox runs commands in bubblewrap. Its methods are safe for concurrent
// use; a nil *Sandbox is a machine with no sandbox.
type Sandbox struct {
	o Options

	once  sync.Once
	bwrap string // the program, once the probe found it working
	err   error  // why it does not work, wrapping ErrUnavailable
}

// New returns a Sandbox; nothing is tried before the first use.
func New(o Options) *Sandbox { return &Sandbox{o: o} }

// Available returns nil when commands can be sandboxed on this machine, or
// an error wrapping ErrUnavailable that says why not, in words a person can
// act on. The first call tries bwrap once; later calls return its answer.
func (s *Sandbox) Available() error {
	if s == nil {
		return fmt.Errorf("%w: no sandbox was set up for commands", ErrUnavailable)
	}
	s.once.Do(func() { s.bwrap, s.err = s.probe() })
	return s.err
}

// State returns what becomes of commands under set on this machine.
func (s *Sandbox) State(set Settings) State {
	st := State{Mode: set.EffectiveMode(), Network: set.EffectiveNetwork() == NetworkOn}
	if st.Mode == ModeOff {
		st.Reason = "the sandbox is off for this run: commands see what the server's user sees"
		return st
	}
	if err := s.Available(); err != nil {
		st.Reason = err.Error()
		st.Refused = st.Mode == ModeOn
		return st
	}
	st.Confined = true
	return st
}
