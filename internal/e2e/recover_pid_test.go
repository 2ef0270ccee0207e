//go:build linux

package e2e

// The restart of a container, played with PID namespaces: `steward serve` is
// started as pid 1 of a fresh PID namespace (unshare --pid --fork
// --mount-proc), killed with SIGKILL while a run waits on an approval, and
// started again on the same data directory, pid 1 again. The new process
// must take its predecessor's leases at once (the lease is 15 s long, and a
// pid names nobody), resume the run paused recovered, say so in its log, and
// drive it on.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pidNamespace returns the unshare command line that starts a program as
// pid 1 of a new PID namespace, or skips the test where none can be made.
func pidNamespace(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare (util-linux) on this machine")
	}
	for _, flags := range [][]string{
		{"--pid", "--fork", "--mount-proc"},
		{"--user", "--map-root-user", "--pid", "--fork", "--mount-proc"}, // not root: a user namespace first
	} {
		out, err := exec.Command("unshare", append(flags, "sh", "-c", "echo $$")...).Output()
		if err == nil && strings.TrimSpace(string(out)) == "1" {
			return append([]string{"unshare"}, flags...)
		}
	}
	t.Skip("this machine cannot make a PID namespace (unshare --pid --fork --mount-proc fails)")
	return nil
}

// nsServer is `steward serve` as pid 1 of its own PID namespace.
type nsServer struct {
	cmd            *exec.Cmd
	c              *krClient
	exited         chan struct{}
	hostPID, nsPID int
}

func startInNamespace(t *testing.T, prefix []string, bin, home string, logs *lockedBuffer, phase int) *nsServer {
	t.Helper()
	args := append(append([]string{}, prefix[1:]...), "--", bin, "serve", "--addr", "127.0.0.1:0")
	cmd := exec.Command(prefix[0], args...)
	cmd.Dir = home
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STEWARD_HOME=" + home, "STEWARD_DISCOVER=0", "STEWARD_TOKEN=" + krToken}
	// One process group, unshare and steward: a kill of the group is the
	// runtime killing the container. Pdeathsig: a test that dies takes
	// them along.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &nsServer{cmd: cmd, exited: make(chan struct{})}
	t.Cleanup(s.kill)
	found := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			logs.add(fmt.Sprintf("[start %d] %s", phase, sc.Text()))
			if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	go func() {
		<-copied
		_ = cmd.Wait()
		close(s.exited)
	}()
	select {
	case base := <-found:
		s.c = &krClient{base: base, hc: &http.Client{Timeout: 10 * time.Second}}
	case <-s.exited:
		t.Fatalf("start %d: steward serve exited before printing its URL:\n%s", phase, logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("start %d: steward serve printed no URL within 30 s:\n%s", phase, logs)
	}
	s.hostPID, s.nsPID, err = stewardPIDs(cmd.Process.Pid)
	if err != nil {
		t.Fatalf("start %d: %v", phase, err)
	}
	return s
}

// stewardPIDs finds the one child of unshare (pid parent) and returns its
// pid on this machine and in its own namespace (NSpid's last field).
func stewardPIDs(parent int) (host, ns int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", parent, parent))
	if err != nil {
		return 0, 0, err
	}
	kids := strings.Fields(string(b))
	if len(kids) != 1 {
		return 0, 0, fmt.Errorf("unshare has children %q, want one", kids)
	}
	host, _ = strconv.Atoi(kids[0])
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", host))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "NSpid:" {
			ns, _ = strconv.Atoi(f[len(f)-1])
			return host, ns, nil
		}
	}
	return 0, 0, errors.New("no NSpid line in " + string(status))
}

func (s *nsServer) kill() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
}

func TestKillRecoverSamePID(t *testing.T) {
	t.Parallel()
	prefix := pidNamespace(t)
	bin := stewardBin(t)
	home, ws := t.TempDir(), t.TempDir()
	logs := &lockedBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format+"\nserver output:\n%s", append(args, logs)...)
	}

	first := startInNamespace(t, prefix, bin, home, logs, 1)
	if first.nsPID != 1 {
		fail("steward has pid %d in its namespace, want 1", first.nsPID)
	}
	var ag struct {
		ID string `json:"id"`
	}
	script := `{"turns": [
		{"text": "Writing.", "tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "A"}}]},
		{"text": "Done."}]}`
	scriptFile := home + "/same-pid.json"
	if err := os.WriteFile(scriptFile, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := first.c.call(ctx, "POST", "/api/v1/agents", map[string]any{
		"name": "same-pid", "provider": "script", "script": scriptFile, "tools": []string{"write_file"}, "mode": "ask",
	}, &ag); err != nil {
		fail("create agent: %v", err)
	}
	var r struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	if err := first.c.call(ctx, "POST", "/api/v1/runs", map[string]any{"agent": ag.ID, "instructions": "write a.txt", "workspace": ws}, &r); err != nil {
		fail("start run: %v", err)
	}
	runID := r.ID
	waitRunStatus := func(c *krClient, within time.Duration, ok func() bool) bool {
		deadline := time.Now().Add(within)
		for time.Now().Before(deadline) {
			if err := c.call(ctx, "GET", "/api/v1/runs/"+runID, nil, &r); err == nil && ok() {
				return true
			}
			time.Sleep(20 * time.Millisecond)
		}
		return false
	}
	if !waitRunStatus(first.c, 10*time.Second, func() bool { return r.Status == "waiting" }) {
		fail("the run is %s (%s), want waiting on the approval of write_file", r.Status, r.Reason)
	}

	// The container is killed and its runtime starts it again: a new
	// process, pid 1 again, on the same data.
	first.kill()
	second := startInNamespace(t, prefix, bin, home, logs, 2)
	if second.nsPID != 1 || second.hostPID == first.hostPID {
		fail("restarted steward has pid %d (host %d, was %d), want 1 in a new namespace", second.nsPID, second.hostPID, first.hostPID)
	}
	began := time.Now()
	// Well within the lease's 15 s: the predecessor is known dead at once.
	if !waitRunStatus(second.c, 5*time.Second, func() bool { return r.Status == "paused" && strings.Contains(r.Reason, "recovered") }) {
		fail("after the restart the run is %s (%s), want paused, reason recovered, at once", r.Status, r.Reason)
	}
	t.Logf("recovered %v after the new process printed its URL", time.Since(began).Round(time.Millisecond))
	if !strings.Contains(logs.String(), "taken over from a Steward process that stopped (pid 1)") {
		fail("the log does not say the run was taken over from the stopped pid 1")
	}
	var res krCommandResult
	if err := second.c.call(ctx, "POST", "/api/v1/runs/"+runID+"/commands", map[string]any{"command_id": "go-on", "type": "continue"}, &res); err != nil || res.Status != "accepted" {
		fail("continue after the restart = %+v, %v", res, err)
	}
	var inbox struct {
		Interactions []struct {
			ID string `json:"id"`
		} `json:"interactions"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(inbox.Interactions) == 0 && time.Now().Before(deadline) {
		if err := second.c.call(ctx, "GET", "/api/v1/interactions?status=pending&run_id="+runID, nil, &inbox); err != nil {
			fail("inbox: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(inbox.Interactions) != 1 {
		fail("pending approvals after the restart: %d, want the write_file approval still open", len(inbox.Interactions))
	}
	if err := second.c.call(ctx, "POST", "/api/v1/interactions/"+inbox.Interactions[0].ID+"/answer", map[string]any{"decision": "approve"}, nil); err != nil {
		fail("approve: %v", err)
	}
	if !waitRunStatus(second.c, 10*time.Second, func() bool { return krTerminal(r.Status) }) || r.Status != "completed" {
		fail("the run ended %s (%s), want completed", r.Status, r.Reason)
	}
	if b, err := os.ReadFile(ws + "/a.txt"); err != nil || string(b) != "A" {
		fail("a.txt = %q, %v", b, err)
	}
}
