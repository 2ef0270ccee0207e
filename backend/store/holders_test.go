package store_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/store"
)

// TestLeases: a live lease is kept by its holder until it expires or is
// released; renewing extends it.
func TestLeases(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1_000_000)
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := store.Open(path, &store.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	// Three holders of one open store: alive, so only time decides.
	a, b := st.NewHolder("a"), st.NewHolder("b")
	if _, ok, err := st.AcquireLease(ctx, "r", a, 10*time.Second); err != nil || !ok {
		t.Fatalf("first lease: %v %v", ok, err)
	}
	if prev, ok, _ := st.AcquireLease(ctx, "r", b, 10*time.Second); ok || prev != a {
		t.Errorf("b took a live lease of a (or did not name a: %+v)", prev)
	}
	if _, ok, _ := st.AcquireLease(ctx, "r", a, 10*time.Second); !ok {
		t.Error("a could not renew its own lease")
	}
	now = now.Add(9 * time.Second)
	if err := st.RenewLeases(ctx, a, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	now = now.Add(9 * time.Second) // 18 s after the start: alive thanks to the renewal
	if _, ok, _ := st.AcquireLease(ctx, "r", b, 10*time.Second); ok {
		t.Error("b took a renewed lease")
	}
	if h, live, err := st.LeaseHolder(ctx, "r"); err != nil || !live || h != a {
		t.Errorf("LeaseHolder = %+v %v %v, want a, live", h, live, err)
	}
	now = now.Add(2 * time.Second) // expired now
	if prev, ok, _ := st.AcquireLease(ctx, "r", b, 10*time.Second); !ok || prev != a {
		t.Errorf("b could not take an expired lease (ok %v, from %+v)", ok, prev)
	}
	if err := st.ReleaseLease(ctx, "r", a); err != nil { // not a's any more: no effect
		t.Fatal(err)
	}
	if _, ok, _ := st.AcquireLease(ctx, "r", a, 10*time.Second); ok {
		t.Error("a's release removed b's lease")
	}
	if err := st.ReleaseLease(ctx, "r", b); err != nil {
		t.Fatal(err)
	}
	if prev, ok, _ := st.AcquireLease(ctx, "r", a, 10*time.Second); !ok || prev != (store.Holder{}) {
		t.Errorf("a could not take a released lease (ok %v, from %+v)", ok, prev)
	}
}

// TestLeaseOfAGoneHolder: a holder whose store is closed, or whose process
// was killed, is gone at once, whatever its pid says: a lease it held is
// taken without waiting for it to expire. One that lives keeps its lease.
func TestLeaseOfAGoneHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	me := st.NewHolder("me")

	other, err := store.Open(path, nil) // another live "process" on the database
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	closed, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	// Another process that opened the database and was killed: its holder,
	// as it wrote it, and as a new process of the same pid would see it
	// (pid 1 in a container restarted by its runtime). Its lock file is
	// still there: the first look takes its lock and removes it.
	killed := holderOfKilledProcess(t, path)
	samePID := killed
	samePID.PID = os.Getpid()
	if _, err := os.Stat(filepath.Join(path+"-holders", killed.Instance)); err != nil {
		t.Fatalf("the killed process left no lock file: %v", err)
	}

	tests := []struct {
		name   string
		holder store.Holder
		alive  bool
	}{
		{"another open store", other.NewHolder("x"), true},
		{"a closed store", closed.NewHolder("x"), false},
		{"a killed process", killed, false},
		{"a killed process that had this process's pid", samePID, false},
		{"a killed process whose pid now runs another process", store.Holder{PID: os.Getppid(), Instance: killed.Instance, Name: killed.Name}, false},
		// The form older versions wrote (pid:name) is judged by its pid.
		{"old form, a pid that runs", store.Holder{PID: os.Getppid(), Name: "proc_1"}, true},
		{"old form, a pid that does not run", store.Holder{PID: 999_999_999, Name: "proc_1"}, false},
		{"old form, this process's pid", store.Holder{PID: os.Getpid(), Name: "proc_1"}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := fmt.Sprintf("run_%d", i)
			if _, ok, err := other.AcquireLease(ctx, run, tt.holder, time.Hour); err != nil || !ok {
				t.Fatalf("plant lease: %v %v", ok, err)
			}
			if _, live, err := st.LeaseHolder(ctx, run); err != nil || live != tt.alive {
				t.Errorf("LeaseHolder: live = %v, %v; want %v", live, err, tt.alive)
			}
			prev, ok, err := st.AcquireLease(ctx, run, me, time.Hour)
			if err != nil || ok == tt.alive || prev != tt.holder {
				t.Errorf("AcquireLease = %v from %+v, %v; want taken %v from %+v", ok, prev, err, !tt.alive, tt.holder)
			}
		})
	}

	// A holder of no known form is left to its lease's expiry.
	if _, _, err := st.AcquireLease(ctx, "odd", store.Holder{Name: "not-a-holder"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.AcquireLease(ctx, "odd", me, time.Hour); ok {
		t.Error("a holder of unknown form lost its live lease")
	}

	// A store that opens sweeps the lock files of the holders that are
	// gone: what is left are the files of the stores still open.
	sweptLater := holderOfKilledProcess(t, path)
	third, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := third.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(path+"-holders", sweptLater.Instance)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file of a killed process is still there after an open: %v", err)
	}
	files, err := os.ReadDir(path + "-holders")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		var names []string
		for _, f := range files {
			names = append(names, f.Name())
		}
		t.Errorf("holder files %v, want the two of the open stores", names)
	}
}

// holderOfKilledProcess runs this test binary as another process that opens
// the database at path and takes a lease, kills it with SIGKILL, reaps it,
// and returns its holder.
func holderOfKilledProcess(t *testing.T, path string) store.Holder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHolderProcess$")
	cmd.Env = append(os.Environ(), "STEWARD_HOLDER_DB="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("holder process: %v", err)
	}
	_ = cmd.Process.Kill() // SIGKILL: no Close, no clean-up of any kind
	_ = cmd.Wait()
	f := strings.Fields(line)
	if len(f) != 4 || f[0] != "holder" {
		t.Fatalf("holder process said %q", line)
	}
	pid, _ := strconv.Atoi(f[1])
	if pid != cmd.Process.Pid {
		t.Fatalf("holder process has pid %d, said %d", cmd.Process.Pid, pid)
	}
	return store.Holder{PID: pid, Instance: f[2], Name: f[3]}
}

// TestHolderProcess is the process holderOfKilledProcess kills; it does
// nothing in a normal test run.
func TestHolderProcess(t *testing.T) {
	path := os.Getenv("STEWARD_HOLDER_DB")
	if path == "" {
		t.Skip("run by TestLeaseOfAGoneHolder")
	}
	st, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := st.NewHolder("killed")
	if _, ok, err := st.AcquireLease(context.Background(), "killed", h, time.Hour); err != nil || !ok {
		t.Fatal(ok, err)
	}
	fmt.Printf("holder %d %s %s\n", h.PID, h.Instance, h.Name)
	time.Sleep(time.Minute) // until killed
}

// TestSubmitCommand: a command's answer and the events of its effect
// commit together; a command id answered before writes nothing.
func TestSubmitCommand(t *testing.T) {
	t.Parallel()
	st, _ := open(t, nil)
	ctx := context.Background()
	mustAppend(t, st, event.New("r", event.RunCreated, "", event.RunCreatedData{Agent: event.AgentRef{Name: "a"}, Workspace: "/ws", Mode: "ask", MaxSteps: 3}))
	steer := func(text string) []event.Event {
		return []event.Event{
			event.New("r", event.NodeStarted, "n9", event.NodeStartedData{Kind: event.KindUser, Label: "steer", Text: text}),
			event.New("r", event.NodeFinished, "n9", event.NodeFinishedData{Status: event.NodeSucceeded}),
		}
	}
	cmd := store.CommandRecord{RunID: "r", CommandID: "c1", Type: "steer", Result: []byte(`{"status":"accepted"}`)}
	if _, err := st.SubmitCommand(cmd, steer("first")).Wait(); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := st.LookupCommand(ctx, "r", "c1"); err != nil || !ok || string(got) != `{"status":"accepted"}` {
		t.Errorf("LookupCommand = %s %v %v", got, ok, err)
	}
	cmd.Result = []byte(`{"status":"rejected"}`)
	if _, err := st.SubmitCommand(cmd, steer("again")).Wait(); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a repeated command id: %v, want ErrConflict", err)
	}
	evs, err := st.Events(ctx, "r", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 {
		t.Errorf("the log has %d events, want run.created and the first steer's two", len(evs))
	}
	if got, _, _ := st.LookupCommand(ctx, "r", "c1"); string(got) != `{"status":"accepted"}` {
		t.Errorf("the first answer became %s", got)
	}
	// An answer with no effect to record is saved alone.
	if _, err := st.SubmitCommand(store.CommandRecord{RunID: "r", CommandID: "c2", Type: "cancel", Result: []byte(`{"status":"accepted"}`)}, nil).Wait(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		typ  string
		want bool
	}{{"cancel", true}, {"steer", true}, {"pause", false}} {
		if got, err := st.CommandAccepted(ctx, "r", tt.typ); err != nil || got != tt.want {
			t.Errorf("CommandAccepted(%s) = %v, %v; want %v", tt.typ, got, err, tt.want)
		}
	}
	if _, _, err := st.SaveCommand(ctx, "r", "c3", "pause", []byte(`{"status":"rejected"}`)); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.CommandAccepted(ctx, "r", "pause"); got {
		t.Error("a rejected pause counts as accepted")
	}
}
