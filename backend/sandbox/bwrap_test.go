package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mountsOf returns bwrap's mount options in args, as "option path" strings,
// in order.
func mountsOf(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--tmpfs", "--dir":
			out = append(out, args[i]+" "+args[i+1])
			i++
		case "--bind", "--ro-bind":
			out = append(out, args[i]+" "+args[i+1]+" "+args[i+2])
			i += 2
		case "--":
			return out
		}
	}
	return out
}

// TestBwrapArgsOrder: every mount comes after the mounts that contain it,
// so that a workspace inside a hidden folder is still there and a hidden
// folder inside the workspace is still hidden.
func TestBwrapArgsOrder(t *testing.T) {
	t.Parallel()
	const home, data = "/home/u", "/home/u/.local/share/steward"
	hid := []hidden{
		{path: "/home/u/.aws", dir: true},
		{path: data, dir: true},
		{path: "/home/u/.netrc"},
		{path: "/home/u/.ssh", dir: true},
		{path: "/tmp/elsewhere", dir: true}, // under the private /tmp: no mount needed
		{path: "/run/user", dir: true},
	}
	tests := []struct {
		name, ws string
		home     string
		want     []string
	}{
		{"workspace elsewhere", "/srv/project", home, []string{
			"--tmpfs /tmp", "--bind /srv/project /srv/project", "--tmpfs /run/user", "--tmpfs /home/u/.aws",
			"--ro-bind /dev/null /home/u/.netrc", "--tmpfs /home/u/.ssh", "--tmpfs " + data}},
		{"workspace is the home folder", home, home, []string{
			"--tmpfs /tmp", "--bind /home/u /home/u", "--tmpfs /run/user", "--tmpfs /home/u/.aws",
			"--ro-bind /dev/null /home/u/.netrc", "--tmpfs /home/u/.ssh", "--tmpfs " + data}},
		{"workspace of a replay, inside the data directory", data + "/replays/rp1", home, []string{
			"--tmpfs /tmp", "--tmpfs /run/user", "--tmpfs /home/u/.aws", "--ro-bind /dev/null /home/u/.netrc",
			"--tmpfs /home/u/.ssh", "--tmpfs " + data, "--bind " + data + "/replays/rp1 " + data + "/replays/rp1"}},
		{"workspace in /tmp", "/tmp/ws", home, []string{
			"--tmpfs /tmp", "--bind /tmp/ws /tmp/ws", "--tmpfs /run/user", "--tmpfs /home/u/.aws",
			"--ro-bind /dev/null /home/u/.netrc", "--tmpfs /home/u/.ssh", "--tmpfs " + data}},
		{"workspace is /tmp", "/tmp", home, []string{
			"--tmpfs /tmp", "--bind /tmp /tmp", "--tmpfs /tmp/elsewhere", "--tmpfs /run/user", "--tmpfs /home/u/.aws",
			"--ro-bind /dev/null /home/u/.netrc", "--tmpfs /home/u/.ssh", "--tmpfs " + data}},
		{"home inside the data directory", "/srv/project", data + "/home", []string{
			"--tmpfs /tmp", "--bind /srv/project /srv/project", "--tmpfs /run/user", "--tmpfs /home/u/.aws",
			"--ro-bind /dev/null /home/u/.netrc", "--tmpfs /home/u/.ssh", "--tmpfs " + data, "--dir " + data + "/home"}},
		{"home in /tmp", "/srv/project", "/tmp/home", []string{
			"--tmpfs /tmp", "--bind /srv/project /srv/project", "--tmpfs /run/user", "--dir /tmp/home", "--tmpfs /home/u/.aws",
			"--ro-bind /dev/null /home/u/.netrc", "--tmpfs /home/u/.ssh", "--tmpfs " + data}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Command{Path: "/bin/sh", Args: []string{"-c", "true"}, Dir: tt.ws, Workspace: tt.ws, Env: []string{"HOME=" + tt.home}}
			args := bwrapArgs(c, hid, "", false)
			got := mountsOf(args)
			if got[0] != "--ro-bind / /" {
				t.Fatalf("the first mount is %q, not the read-only root", got[0])
			}
			if !slices.Equal(got[1:], tt.want) {
				t.Errorf("mounts\n got %q\nwant %q", got[1:], tt.want)
			}
			if tail := strings.Join(args[len(args)-6:], " "); tail != "--chdir "+tt.ws+" -- /bin/sh -c true" {
				t.Errorf("args end %q", tail)
			}
		})
	}
}

// TestBwrapArgsReadOnly: a path of the private /tmp a program needs is
// seen read-only over it, a hidden path inside it stays hidden, and one
// inside a hidden path (or outside /tmp, where the root shows it already)
// gets no mount.
func TestBwrapArgsReadOnly(t *testing.T) {
	t.Parallel()
	hid := []hidden{{path: "/tmp/prog/secret", dir: true}, {path: "/tmp/home-data", dir: true}, {path: "/tmp/other", dir: true}}
	c := Command{Path: "/tmp/prog/bin/server", Dir: "/w", Workspace: "/w",
		ReadOnly: []string{"/tmp/prog", "/tmp/home-data/x", "/usr/lib/node"}}
	got := mountsOf(bwrapArgs(c, hid, "", false))
	want := []string{"--ro-bind / /", "--tmpfs /tmp", "--bind /w /w", "--ro-bind /tmp/prog /tmp/prog", "--tmpfs /tmp/prog/secret"}
	if !slices.Equal(got, want) {
		t.Errorf("mounts\n got %q\nwant %q", got, want)
	}
}

// TestBwrapArgsCache: the workspace's cache folder is /tmp/.cache, over the
// private /tmp.
func TestBwrapArgsCache(t *testing.T) {
	t.Parallel()
	c := Command{Path: "/bin/true", Dir: "/w", Workspace: "/w"}
	got := mountsOf(bwrapArgs(c, nil, "/data/sandbox-cache/0123", false))
	want := []string{"--ro-bind / /", "--tmpfs /tmp", "--bind /w /w", "--bind /data/sandbox-cache/0123 /tmp/.cache"}
	if !slices.Equal(got, want) {
		t.Errorf("mounts\n got %q\nwant %q", got, want)
	}
}

func TestBwrapArgsNamespaces(t *testing.T) {
	t.Parallel()
	c := Command{Path: "/bin/true", Dir: "/w", Workspace: "/w"}
	for _, network := range []bool{false, true} {
		c.Network = network
		args := strings.Join(bwrapArgs(c, nil, "", true), " ")
		for _, want := range []string{"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--cap-drop ALL", "--dev /dev", "--proc /proc", "--tmpfs /var/tmp"} {
			if !strings.Contains(args, want) {
				t.Errorf("network %v: no %s in %s", network, want, args)
			}
		}
		if strings.Contains(args, "--unshare-net") == network {
			t.Errorf("network %v: %s", network, args)
		}
		if strings.Contains(args, "--die-with-parent") {
			t.Errorf("--die-with-parent would kill the namespace at the first SIGTERM: %s", args)
		}
	}
}

// TestHidden: what exists of the credentials, the named files and the data
// directory is hidden, links resolved, each path once, none inside another.
func TestHidden(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, xdg, data, elsewhere := filepath.Join(base, "home"), filepath.Join(base, "xdg"), filepath.Join(base, "data"), filepath.Join(base, "elsewhere")
	for _, d := range []string{home + "/.ssh", home + "/.config/gh", xdg + "/gcloud", data + "/blobs", elsewhere + "/aws", home + "/src"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{home + "/.netrc", elsewhere + "/agent.sock", elsewhere + "/kube1", elsewhere + "/kube2"} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(elsewhere+"/aws", home+"/.aws"); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg, "SSH_AUTH_SOCK": elsewhere + "/agent.sock",
		"KUBECONFIG": elsewhere + "/kube1:" + elsewhere + "/kube2", "GNUPGHOME": "relative/ignored"}
	s := New(Options{Hide: []string{data, data + "/blobs", data}, Getenv: func(k string) string { return env[k] }})
	var got []string
	for _, h := range s.hidden() {
		if within(h.path, base) {
			kind := "file"
			if h.dir {
				kind = "dir"
			}
			got = append(got, strings.TrimPrefix(h.path, base)+" "+kind)
		}
	}
	want := []string{"/data dir", "/elsewhere/agent.sock file", "/elsewhere/aws dir", "/elsewhere/kube1 file", "/elsewhere/kube2 file",
		"/home/.config/gh dir", "/home/.netrc file", "/home/.ssh dir", "/xdg/gcloud dir"}
	if !slices.Equal(got, want) {
		t.Errorf("hidden\n got %q\nwant %q", got, want)
	}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		set  Settings
		want string
	}{
		{Settings{}, ""},
		{Settings{Mode: "auto", Network: "off"}, ""},
		{Settings{Mode: "on", Network: "on"}, ""},
		{Settings{Mode: "off"}, ""},
		{Settings{Mode: "yes"}, `sandbox "yes" is not one of auto, on, off`},
		{Settings{Network: "lan"}, `sandbox_network "lan" is not one of off, on`},
	} {
		err := tt.set.Validate()
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", tt.set, err, tt.want)
		}
	}
	broken := New(Options{Bwrap: "/nonexistent/bwrap"})
	for _, tt := range []struct {
		set                     Settings
		confined, refused, miss bool
		reason                  string
	}{
		{Settings{}, false, false, true, "bubblewrap is not at /nonexistent/bwrap"},
		{Settings{Mode: ModeOn, Network: NetworkOn}, false, true, false, "bubblewrap is not at /nonexistent/bwrap"},
		{Settings{Mode: ModeOff}, false, false, false, "the sandbox is off for this run"},
	} {
		st := broken.State(tt.set)
		if st.Confined != tt.confined || st.Refused != tt.refused || st.Missing() != tt.miss || !strings.Contains(st.Reason, tt.reason) {
			t.Errorf("State(%+v) = %+v (missing %v)", tt.set, st, st.Missing())
		}
	}
	if st := (*Sandbox)(nil).State(Settings{Mode: ModeOn}); !st.Refused || !strings.Contains(st.Reason, "no sandbox was set up") {
		t.Errorf("nil sandbox: %+v", st)
	}
}

// TestCredentialsDocumented: docs/configuration.md names every credential
// path, and every system path, that commands do not see.
func TestCredentialsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Credentials {
		if !strings.Contains(string(doc), "`~/"+c+"`") {
			t.Errorf("docs/configuration.md does not list `~/%s`", c)
		}
	}
	for _, p := range append(slices.Clone(systemHidden), credentialVars...) {
		if !strings.Contains(string(doc), "`"+p+"`") {
			t.Errorf("docs/configuration.md does not list `%s`", p)
		}
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	if err := os.MkdirAll(home+"/.ssh", 0o700); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
	// A workspace outside /tmp, so that the hidden folder under /tmp counts.
	c := Command{Workspace: home + "/src", Env: []string{"HOME=" + home}}
	tests := []struct {
		name, output string
		network      bool
		want         []string
	}{
		{"no route", "curl: (7) Couldn't connect: Network is unreachable", false, []string{"network is off for this agent"}},
		{"no name server", "dial tcp: lookup proxy.golang.org on 127.0.0.53:53: connect: connection refused", false, []string{"network is off"}},
		{"network on", "connect: Network is unreachable", true, nil},
		{"read-only", "touch: cannot touch '/usr/x': Read-only file system", false, []string{"write only in the workspace and in /tmp"}},
		{"hidden path", "cat: " + home + "/.ssh/id_rsa: No such file or directory", false, []string{home + "/.ssh is hidden from commands"}},
		{"hidden path by ~", "ls: cannot access '~/.ssh': No such file", false, []string{"~/.ssh is hidden from commands"}},
		{"nothing to say", "FAIL: TestSomething", false, nil},
		{"bwrap failed", "bwrap: Can't mkdir /w: Read-only file system", true, []string{"the sandbox could not be set up", "write only in the workspace"}},
	}
	for _, tt := range tests {
		c.Network = tt.network
		notes := s.Explain(c, tt.output)
		if len(notes) != len(tt.want) {
			t.Errorf("%s: notes %q, want %q", tt.name, notes, tt.want)
			continue
		}
		for i, w := range tt.want {
			if !strings.Contains(notes[i], w) {
				t.Errorf("%s: note %q, want %q", tt.name, notes[i], w)
			}
		}
	}
}
