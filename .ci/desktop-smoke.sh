#!/usr/bin/env bash
# desktop-smoke.sh: open a desktop build in a virtual X display, wait until its window shows
# content, take a screenshot and check that it is not blank.
#
# Usage:  .ci/desktop-smoke.sh BINARY [ARGS...]
#
#   BINARY   a binary built with -tags desktop,production,webkit2_41,sqlite_fts5 that opens a window
#            (steward with no command, or /tmp/smokedemo from app/internal/smokedemo).
#   ARGS     passed to BINARY unchanged.
#
# The environment passes through to BINARY, so e.g.
#   STEWARD_HOME=$(mktemp -d) .ci/desktop-smoke.sh ./bin/steward
#
# Settings (environment):
#   SHOT         screenshot path                      (default /tmp/steward-desktop.png)
#   LOG          BINARY's stdout and stderr           (default /tmp/steward-desktop.log)
#   TIMEOUT      seconds to wait for content          (default 20)
#   MIN_COLOURS  unique colours that count as content (default 150)
#   SETTLE       seconds to wait once content shows, before the final shot (default 1)
#
# Exits 0 when the screenshot shows content, 1 when it does not (or the binary died), 2 on
# bad usage or missing tools. Needs xvfb-run, xauth, xdotool and ImageMagick (import, convert).
#
# Why colours: the window maps in under a second but stays one flat colour for about 2 s
# while WebKit starts; black root + flat window is 2 colours. Anti-aliased text adds dozens:
# a one-line plain-text error page ("no session", i.e. a failed login) measured 87, the
# smokedemo page over 5000. MIN_COLOURS=150 rejects the first and passes any real UI; lower
# it for a deliberately sparse page. This checks that something rendered, not what: look at
# the screenshot.
set -euo pipefail

SHOT=${SHOT:-/tmp/steward-desktop.png}
LOG=${LOG:-/tmp/steward-desktop.log}
TIMEOUT=${TIMEOUT:-20}
MIN_COLOURS=${MIN_COLOURS:-150}
SETTLE=${SETTLE:-1}
export SHOT LOG TIMEOUT MIN_COLOURS SETTLE

die() { echo "desktop-smoke: $*" >&2; exit 2; }

if [[ $# -lt 1 ]]; then
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
fi

# Outer half: start a private X server and run the inner half inside it.
if [[ -z "${DESKTOP_SMOKE_INNER:-}" ]]; then
	bin=$1
	[[ -x "$bin" ]] || die "$bin: not an executable file"
	for tool in xvfb-run xauth xdotool import convert; do
		command -v "$tool" >/dev/null || die "missing tool: $tool"
	done
	if command -v ldd >/dev/null && ! ldd "$bin" 2>/dev/null | grep webkit2gtk-4.1 >/dev/null; then
		echo "desktop-smoke: FAIL: $bin does not link webkit2gtk-4.1; build it with -tags desktop,production,webkit2_41,sqlite_fts5" >&2
		exit 1
	fi
	# 24-bit depth: at the default 8 the colour count means nothing.
	DESKTOP_SMOKE_INNER=1 exec xvfb-run -a -s "-screen 0 1280x900x24 -nolisten tcp" "$0" "$@"
fi

# Inner half: DISPLAY is the virtual server.
bin=$1
shift
: >"$LOG"
start=$(date +%s.%N)
elapsed() { awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - s }'; }
fail() {
	echo "desktop-smoke: FAIL: $*" >&2
	echo "--- last lines of $LOG ---" >&2
	tail -n 30 "$LOG" >&2 || true
	exit 1
}

"$bin" "$@" >>"$LOG" 2>&1 &
pid=$!

stop_app() {
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 50); do # 5 s for a clean shutdown
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "desktop-smoke: warning: $bin ignored SIGTERM for 5 s; killing it" >&2
		kill -KILL "$pid" 2>/dev/null || true
	fi
	local status=0
	wait "$pid" 2>/dev/null || status=$?
	echo "desktop-smoke: $bin stopped (exit status $status)"
}
trap stop_app EXIT

colours() { convert "$1" -format '%k' info:; }

deadline=$(awk -v s="$start" -v t="$TIMEOUT" 'BEGIN { printf "%d", s + t }')
window=""
count=0
tmp="$SHOT.tmp.png"
while :; do
	kill -0 "$pid" 2>/dev/null || fail "$bin exited before showing content (after $(elapsed) s)"
	if [[ -z "$window" ]]; then
		# GTK sets _NET_WM_PID, so search by process first; fall back to any visible window.
		window=$(xdotool search --onlyvisible --pid "$pid" 2>/dev/null | head -n1 || true)
		[[ -n "$window" ]] || window=$(xdotool search --onlyvisible --name '.' 2>/dev/null | head -n1 || true)
		if [[ -n "$window" ]]; then
			echo "desktop-smoke: window $window \"$(xdotool getwindowname "$window" 2>/dev/null || true)\" mapped after $(elapsed) s"
		fi
	fi
	if [[ -n "$window" ]] && import -window root "$tmp" 2>/dev/null; then
		count=$(colours "$tmp")
		((count >= MIN_COLOURS)) && break
	fi
	(($(date +%s) < deadline)) || break
	sleep 0.5
done

[[ -n "$window" ]] || fail "no window mapped within $TIMEOUT s"
if ((count < MIN_COLOURS)); then
	mv -f "$tmp" "$SHOT" 2>/dev/null || true
	fail "window still (nearly) blank after $TIMEOUT s: $count colours, need $MIN_COLOURS; last shot: $SHOT"
fi
echo "desktop-smoke: content after $(elapsed) s ($count colours)"

# The first non-blank frame can be mid-render: give the page a moment, then take the shot.
sleep "$SETTLE"
kill -0 "$pid" 2>/dev/null || fail "$bin exited after showing content"
import -window root "$SHOT" || fail "screenshot failed"
rm -f "$tmp"
count=$(colours "$SHOT")
stddev=$(convert "$SHOT" -format '%[fx:standard_deviation]' info:)
((count >= MIN_COLOURS)) || fail "final screenshot is blank ($count colours); see $SHOT"
echo "desktop-smoke: PASS: $SHOT has $count colours (stddev $stddev); app log: $LOG"
