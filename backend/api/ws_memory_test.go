package api_test

// The memory an idle WebSocket subscriber holds on the server. The clients
// run in a child process (this test binary again, see idleClientsMain), so
// that the server's heap is measured alone: N real gorilla connections on
// loopback, each subscribed as the UI is (the all-runs feed and one run) and
// caught up, then idle.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// idleClientsEnv, set in the environment, makes this test binary the
// clients' process instead of running tests: "URL TOKEN RUN N".
const idleClientsEnv = "STEWARD_TEST_IDLE_WS_CLIENTS"

// maxIdleSubscriberHeap is the target of issue 15: an idle subscriber holds
// at most 16 KiB of the server's heap.
const maxIdleSubscriberHeap = 16 << 10

// Not parallel: the heap is measured across the whole process, so nothing
// else may run meanwhile (Go runs the parallel tests after this one).
func TestWSIdleSubscriberMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 200 connections in a second process")
	}
	const n = 200
	e := newEnv(t)
	r := e.completedRun()

	heap, stack := idleSubscribers(t, e, r.ID, n)
	t.Logf("%d idle subscribers: %.0f B of heap and %.0f B of goroutine stacks each", n, heap, stack)
	benchReport(t, "WSIdleSubscriberHeap", heap, "B/subscriber")
	benchReport(t, "WSIdleSubscriberStack", stack, "B/subscriber")
	if heap > maxIdleSubscriberHeap {
		t.Errorf("an idle subscriber holds %.0f B of heap; the target is at most %d", heap, maxIdleSubscriberHeap)
	}
}

// idleSubscribers connects n idle clients from a child process and returns
// the server's heap and goroutine stacks per client, each live after a GC.
func idleSubscribers(t *testing.T, e *env, runID string, n int) (heap, stack float64) {
	t.Helper()
	// One client first, so that what every server allocates once (pools,
	// the upgrader's first use) is in the baseline.
	warm := e.dial(nil)
	send(t, warm, map[string]any{"type": "subscribe", "id": "w"})
	if m := recv(t, warm); m.Type != "caught_up" {
		t.Fatalf("warm-up client got %+v", m)
	}
	warm.Close()

	before := liveMemory()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %s %d", idleClientsEnv, e.wsURL(), token, runID, n))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close() // the clients close their connections and exit
		if err := cmd.Wait(); err != nil {
			t.Errorf("clients' process: %v", err)
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("clients' process said %q (%v), want ready", line, err)
	}
	after := liveMemory()
	return float64(int64(after.heap)-int64(before.heap)) / float64(n),
		float64(int64(after.stack)-int64(before.stack)) / float64(n)
}

type memory struct{ heap, stack uint64 }

// liveMemory is the live heap and the goroutine stacks in use once the
// process settles: collected twice (sync.Pools keep their objects for one
// collection) after a pause that lets exiting goroutines finish.
func liveMemory() memory {
	time.Sleep(100 * time.Millisecond)
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memory{heap: ms.HeapAlloc, stack: ms.StackInuse}
}

// idleClientsMain is the clients' process: it connects the clients, says
// "ready" when every one is caught up on both its feeds, and closes them
// when its stdin closes.
func idleClientsMain(spec string) int {
	f := strings.Fields(spec)
	if len(f) != 4 {
		fmt.Fprintf(os.Stderr, "%s=%q: want URL TOKEN RUN N\n", idleClientsEnv, spec)
		return 2
	}
	url, tok, runID := f[0], f[1], f[2]
	n, err := strconv.Atoi(f[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	conns := make([]*websocket.Conn, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() {
			c, _, err := websocket.DefaultDialer.Dial(url, map[string][]string{"Authorization": {"Bearer " + tok}})
			if err != nil {
				errs <- err
				return
			}
			conns[i] = c
			for _, m := range []map[string]any{{"type": "subscribe", "id": "all"}, {"type": "subscribe", "id": "run", "run_id": runID}} {
				if err := c.WriteJSON(m); err != nil {
					errs <- err
					return
				}
			}
			c.SetReadDeadline(time.Now().Add(waitTimeout))
			for caught := 0; caught < 2; {
				var m wsMsg
				if err := c.ReadJSON(&m); err != nil {
					errs <- err
					return
				}
				if m.Type == "caught_up" {
					caught++
				}
			}
			c.SetReadDeadline(time.Time{})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 1
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	for _, c := range conns {
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		c.Close()
	}
	return 0
}

// benchReport appends one figure, in `go test -bench` form, to the file
// named by STEWARD_BENCH_REPORT, so that make bench reports its median with
// the benchmarks'.
func benchReport(t *testing.T, name string, value float64, unit string) {
	path := os.Getenv("STEWARD_BENCH_REPORT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("bench report: %v", err)
		return
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "Benchmark%s 1 0 ns/op %.6g %s\n", name, value, unit); err != nil {
		t.Errorf("bench report: %v", err)
	}
}
