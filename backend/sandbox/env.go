package sandbox

import (
	"os"
	"sort"
	"strings"
)

// allowed are the variables of the server's environment that commands
// receive. It is an allowlist: a variable that is not named here (an API key,
// STEWARD_TOKEN, a proxy URL with a password in it, SSH_AUTH_SOCK, a cloud
// profile) never reaches a command, whatever it is called.
var allowed = map[string]bool{
	// Who and where: programs misbehave without them.
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"TMPDIR": true, "TZ": true,
	// Locale: messages, sorting and encodings as the person has them.
	"LANG": true, "LANGUAGE": true, "LC_ALL": true, "LC_CTYPE": true, "LC_COLLATE": true,
	"LC_MESSAGES": true, "LC_MONETARY": true, "LC_NUMERIC": true, "LC_TIME": true,
	"LC_ADDRESS": true, "LC_IDENTIFICATION": true, "LC_MEASUREMENT": true, "LC_NAME": true,
	"LC_PAPER": true, "LC_TELEPHONE": true,
	// Where configuration and caches live. XDG_RUNTIME_DIR is left out on
	// purpose: it leads to the session bus, the keyring and agent sockets.
	"XDG_CONFIG_HOME": true, "XDG_CACHE_HOME": true, "XDG_DATA_HOME": true, "XDG_STATE_HOME": true,
	// Where toolchains are installed, so builds and tests find them. Only
	// locations: variables that may carry credentials (GOPROXY, npm_config_*,
	// PIP_INDEX_URL) are not passed.
	"GOPATH": true, "GOROOT": true, "GOBIN": true, "GOCACHE": true, "GOMODCACHE": true, "GOTOOLCHAIN": true,
	"CARGO_HOME": true, "RUSTUP_HOME": true, "JAVA_HOME": true, "NVM_DIR": true, "PYENV_ROOT": true,
	// Certificates of a corporate proxy or a private CA.
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
}

// fixed are set for every command, whatever the server's environment says:
// nobody sits at the command's terminal, so nothing may page, colour its
// output or wait for a password.
var fixed = []string{
	"TERM=dumb",
	"NO_COLOR=1",
	"PAGER=cat",
	"GIT_PAGER=cat",
	"GIT_TERMINAL_PROMPT=0",
}

// defaultPath is PATH when the server has none.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// Env returns the environment of every program Steward starts for a run
// (commands, git, Chromium, ffmpeg): the allowlisted variables of the
// server's environment (PATH, HOME, USER, the locale, TMPDIR, TZ, XDG and
// toolchain directories), then TERM=dumb, NO_COLOR=1, PAGER=cat,
// GIT_PAGER=cat and GIT_TERMINAL_PROMPT=0. No API key or token of the server
// is in it. It is sorted by name.
func Env() []string { return envFrom(os.Environ()) }

func envFrom(environ []string) []string {
	set := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && allowed[k] {
			set[k] = v
		}
	}
	if set["PATH"] == "" {
		set["PATH"] = defaultPath
	}
	for _, kv := range fixed {
		k, v, _ := strings.Cut(kv, "=")
		set[k] = v
	}
	out := make([]string, 0, len(set))
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
