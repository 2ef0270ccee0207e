package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Credentials are the folders and files of the person's home folder that
// commands do not see: keys, tokens, cookies, password stores, and the shell
// histories where pasted tokens end up. Those under .config/ are also hidden
// under XDG_CONFIG_HOME when it is set elsewhere. docs/configuration.md lists
// them; a test keeps the two in step.
var Credentials = []string{
	// Keys and agents' configuration.
	".ssh", ".gnupg", ".password-store", ".local/share/keyrings",
	// Clouds, clusters, registries.
	".aws", ".azure", ".kube", ".docker", ".config/gcloud", ".config/rclone",
	".terraform.d/credentials.tfrc.json", ".vault-token",
	// Code hosts and package registries.
	".config/gh", ".config/hub", ".git-credentials", ".config/git/credentials", ".netrc",
	".npmrc", ".yarnrc.yml", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	// Databases.
	".pgpass", ".my.cnf",
	// Password managers and browsers' profiles, with their cookies.
	".config/op", ".mozilla", ".config/google-chrome", ".config/chromium",
	// Shell and REPL histories.
	".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history", ".local/share/fish/fish_history",
}

// credentialVars name credential files and sockets outside the usual
// places; what they name is hidden too (KUBECONFIG may list several).
var credentialVars = []string{
	"XDG_RUNTIME_DIR", "SSH_AUTH_SOCK", "GNUPGHOME", "DOCKER_CONFIG", "KUBECONFIG",
	"AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "GOOGLE_APPLICATION_CREDENTIALS",
}

// systemHidden are the sockets and secrets of the machine that lead out of
// the sandbox, network or not: a unix socket works through a read-only
// mount. /run/user holds every user's session bus, SSH and GPG agents and
// Wayland socket; Docker's and containerd's sockets are as good as root;
// /run/secrets holds the service-account tokens a container is given.
var systemHidden = []string{
	"/run/user", "/run/docker.sock", "/var/run/docker.sock", "/run/containerd", "/run/podman",
	"/run/secrets", "/var/run/secrets",
}

// hidden is one path commands do not see.
type hidden struct {
	path string // absolute, links resolved
	dir  bool   // a folder (an empty tmpfs takes its place), else a file
}

// hidden returns the paths commands do not see on this machine now: only
// those that exist, links resolved, none inside another.
func (s *Sandbox) hidden() []hidden {
	getenv := s.o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	want := slices.Clone(s.o.Hide)
	if home := getenv("HOME"); filepath.IsAbs(home) {
		for _, c := range Credentials {
			want = append(want, filepath.Join(home, c))
		}
	}
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		for _, c := range Credentials {
			if rest, ok := strings.CutPrefix(c, ".config/"); ok {
				want = append(want, filepath.Join(x, rest))
			}
		}
	}
	for _, v := range credentialVars {
		for p := range strings.SplitSeq(getenv(v), string(filepath.ListSeparator)) {
			if filepath.IsAbs(p) {
				want = append(want, p)
			}
		}
	}
	want = append(want, systemHidden...)

	var out []hidden
	for _, p := range want {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // absent: nothing to hide
		}
		fi, err := os.Stat(real)
		if err != nil || real == "/" {
			continue
		}
		out = append(out, hidden{path: real, dir: fi.IsDir()})
	}
	// A path inside a hidden folder is hidden with it: it is dropped, and
	// so is a path named twice.
	slices.SortFunc(out, func(a, b hidden) int { return strings.Compare(a.path, b.path) })
	var keep []hidden
	for _, h := range out {
		if !slices.ContainsFunc(keep, func(k hidden) bool { return k.path == h.path || (k.dir && within(h.path, k.path)) }) {
			keep = append(keep, h)
		}
	}
	return keep
}

// within reports whether p is dir or lies inside it; both are clean and
// absolute.
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}
