package app

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// notifier raises desktop notifications.
type notifier interface {
	// Notify shows n, or says why it could not be shown.
	Notify(ctx context.Context, n Notice) error
}

// errNoNotifier says that this machine has no program to reach a notification service with.
var errNoNotifier = errors.New("neither gdbus nor notify-send is installed")

// How Steward names itself to the notification service: appName is shown, appID is the
// desktop entry (build/linux/steward.desktop), whose icon and settings the service may use,
// and the name of that icon.
const (
	appName = "Steward"
	appID   = "steward"
)

// newNotifier returns the notifier this machine supports, looking programs up with lookPath
// (exec.LookPath). Both speak to org.freedesktop.Notifications on the session bus, which
// GNOME, KDE, Xfce, dunst and mako all serve. gdbus comes first: it ships with GLib, on which
// the window depends anyway, so it is there more often than notify-send (libnotify-bin).
// Neither is a library linked in: a notification is rare, and a child process that fails
// cannot take the window with it.
func newNotifier(lookPath func(string) (string, error)) notifier {
	if p, err := lookPath("gdbus"); err == nil {
		return commandNotifier{path: p, args: gdbusArgs}
	}
	if p, err := lookPath("notify-send"); err == nil {
		return commandNotifier{path: p, args: notifySendArgs}
	}
	return noNotifier{}
}

// noNotifier is the notifier of a machine without gdbus or notify-send.
type noNotifier struct{}

func (noNotifier) Notify(context.Context, Notice) error { return errNoNotifier }

// commandNotifier raises a notification by running path with args(n).
type commandNotifier struct {
	path string
	args func(Notice) []string
}

// Notify runs the program and waits for it. An error carries what the program printed:
// gdbus says "ServiceUnknown" when no notification service runs, or that it found no
// session bus.
func (c commandNotifier) Notify(ctx context.Context, n Notice) error {
	cmd := exec.CommandContext(ctx, c.path, c.args(n)...)
	// Should the program leave a child holding its output open after being killed, give up
	// on the output this long after.
	cmd.WaitDelay = 500 * time.Millisecond
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	name := filepath.Base(c.path)
	if msg := strings.TrimSpace(string(out)); msg != "" {
		return fmt.Errorf("%s: %w: %s", name, err, msg)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// gdbusArgs are the arguments of gdbus calling Notify(app_name, replaces_id, app_icon,
// summary, body, actions, hints, expire_timeout) of the Desktop Notifications
// Specification. gdbus parses each argument as a GVariant in text form, so every value is
// written as a typed literal: no text of the notice can be taken for another type, or for
// an option (no literal starts with "-").
func gdbusArgs(n Notice) []string {
	return []string{
		"call", "--session",
		"--dest", "org.freedesktop.Notifications",
		"--object-path", "/org/freedesktop/Notifications",
		"--method", "org.freedesktop.Notifications.Notify",
		gvariantString(appName), // app_name
		"uint32 0",              // replaces_id: a new notification
		gvariantString(appID),   // app_icon
		gvariantString(n.Title), // summary: plain text
		gvariantString(markupEscape(n.Body)),
		"@as []", // no actions
		"@a{sv} {" + gvariantString("desktop-entry") + ": <" + gvariantString(appID) + ">}",
		"int32 -1", // expire_timeout: the service's default
	}
}

// notifySendArgs are the same notification for notify-send. "--" ends the options, so a
// title that starts with "-" is still a title. notify-send reads C escapes in the body (it
// passes it through g_strcompress, so that "\n" breaks a line): a backslash is doubled to
// stay one.
func notifySendArgs(n Notice) []string {
	return []string{
		"--app-name=" + appName,
		"--icon=" + appID,
		"--hint=string:desktop-entry:" + appID,
		"--",
		n.Title,
		strings.ReplaceAll(markupEscape(n.Body), `\`, `\\`),
	}
}

// gvariantString returns s as a GVariant text-format string literal: double-quoted, with
// backslash and quote escaped, control characters as \uXXXX, and invalid UTF-8 replaced
// (a GVariant string must be valid UTF-8).
func gvariantString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, string(utf8.RuneError)) {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// markupEscape escapes s for a notification body, which the specification lets a service
// read as a small subset of XML markup (most do): "<" in a question must not start a tag.
func markupEscape(s string) string { return markupEscaper.Replace(s) }

var markupEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
