//go:build linux

package main

// The kill-and-recover test: SIGKILL the real `steward serve` in the middle
// of runs, at many different points, restart it on the same data directory,
// and check what DESIGN.md §1.5 and §4 promise:
//
//   - every run that was active recovers: the new process pauses it (reason
//     recovered, or the interrupted call it waits on) or, when its final
//     answer was already recorded, completes it; nothing runs on its own;
//   - no committed event is lost: every event a WebSocket client received
//     before the kill (the server publishes only after commit) is still in the
//     log with the same seq, time, type, node and data;
//   - no tool call is executed twice without a new decision: a call whose
//     tool.executing committed and that never finished becomes interrupted and
//     runs again only after the person's retry;
//   - an approval that was open stays open and answerable; a file the agent
//     wrote is never on disk without its tool.executing in the log.
//
// Each kill point has its own STEWARD_HOME and three runs of a scripted agent
// (list_dir and a slow read_file, write a.txt with approval, read it back,
// write b.txt with approval, a final answer), started a little apart so that
// a kill finds them at different steps. A third of the kill points fire at a
// time spread over the runs' whole duration; the others fire as soon as the
// WebSocket shows a chosen event of one run (a model call starting, a delta,
// an approval asked or given, a tool starting to execute...), so that every
// phase is hit whatever the machine's speed. Every fourth kill point kills
// the restarted server once more while it drives the recovered runs (at a
// time, or as a retried call starts executing).
//
// The schedule comes from a seed, logged at the start: STEWARD_KILL_SEED=N
// replays it, STEWARD_KILL_ONLY=I plays only kill point I of it, and
// STEWARD_KILL_POINTS=N plays N kill points instead of 50. The last line is
// the report (kill points counts the SIGKILLs, second kills included; the
// line is also written to $STEWARD_KILL_REPORT when that is set):
//
//	kill-recover: 60 kill points, 140 runs, 135 recovered, 0 events lost, 0 re-executed without decision, 20 interrupted calls retried

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"steward/backend/event"
)

const (
	krMinKillPoints = 50
	krRuns          = 3 // concurrent runs per kill point
	krToken         = "kill-recover-token"
	// krChunkDelayMS paces the script: each model call streams for tens of
	// milliseconds, so kills land inside model calls too.
	krChunkDelayMS = 8
	// krBigLines makes big.txt large enough that read_file, which scans a
	// file to its end to count its lines, takes a while: a kill can land
	// while a tool call executes.
	krBigLines = 800_000
	// krSpan is the window of time-based kills, from the first run's start:
	// about the time three runs take to finish.
	krSpan = 700 * time.Millisecond
)

// The agent's script. Turn 1 makes two calls (a fast and a slow read), the
// writes need approval, turn 4 writes what turn 3 read back.
const krScript = `{
  "name": "kill-recover",
  "model": "kill-recover-script",
  "chunk_delay_ms": %d,
  "turns": [
    {"text": "Let me look at the workspace first.", "tool_calls": [
      {"name": "list_dir", "arguments": {"path": "."}},
      {"name": "read_file", "arguments": {"path": "big.txt", "start_line": 1, "end_line": 1}}]},
    {"text": "Now I write a.txt for you.", "tool_calls": [
      {"name": "write_file", "arguments": {"path": "a.txt", "content": "A: {{instructions}}"}}]},
    {"text": "Let me read it back to check.", "tool_calls": [
      {"name": "read_file", "arguments": {"path": "a.txt"}}]},
    {"text": "It is right, so b.txt gets a copy.", "tool_calls": [
      {"name": "write_file", "arguments": {"path": "b.txt", "content": "B: {{last_tool_output}}"}}]},
    {"text": "All done: both files are written."}
  ]
}`

// The call ids the script provider gives: call_<turn>_<index>.
const (
	krCallList   = "call_1_0"
	krCallBig    = "call_1_1"
	krCallWriteA = "call_2_0"
	krCallReadA  = "call_3_0"
	krCallWriteB = "call_4_0"
)

const krFinalText = "All done: both files are written."

// krTrigger kills the server when the WebSocket delivers a matching event of
// the target run, after a delay of minDelay up to maxDelay.
type krTrigger struct {
	name               string
	minDelay, maxDelay time.Duration
	match              func(v *krRun, ev event.Event) bool
}

func krOnType(typ event.Type) func(*krRun, event.Event) bool {
	return func(_ *krRun, ev event.Event) bool { return ev.Type == typ }
}

// krOnCall matches an event of the tool node of a call.
func krOnCall(typ event.Type, call string) func(*krRun, event.Event) bool {
	return func(v *krRun, ev event.Event) bool {
		return ev.Type == typ && ev.NodeID != "" && v.nodes[ev.NodeID].CallID == call
	}
}

// krOnStep matches an event of the llm node of model call step.
func krOnStep(typ event.Type, step int) func(*krRun, event.Event) bool {
	return func(v *krRun, ev event.Event) bool {
		n := v.nodes[ev.NodeID]
		return ev.Type == typ && n.Kind == event.KindLLM && n.Step == step
	}
}

var krTriggers = []krTrigger{
	{"run.created", 0, time.Millisecond, krOnType(event.RunCreated)},
	{"instructions recorded", 0, time.Millisecond, func(v *krRun, ev event.Event) bool {
		return ev.Type == event.NodeStarted && v.nodes[ev.NodeID].Kind == event.KindUser
	}},
	{"model call 1 started", 0, 5 * time.Millisecond, krOnStep(event.NodeStarted, 1)},
	{"model call 1 streaming", 0, 2 * time.Millisecond, krOnStep(event.LLMDelta, 1)},
	{"model call 1 answered", 0, time.Millisecond, krOnStep(event.NodeFinished, 1)},
	{"list_dir executing", 0, 0, krOnCall(event.ToolExecuting, krCallList)},
	{"slow read executing", 0, 3 * time.Millisecond, krOnCall(event.ToolExecuting, krCallBig)},
	{"slow read executing, later", 3 * time.Millisecond, 15 * time.Millisecond, krOnCall(event.ToolExecuting, krCallBig)},
	{"slow read finished", 0, time.Millisecond, krOnCall(event.NodeFinished, krCallBig)},
	{"write a.txt asked", 0, time.Millisecond, krOnCall(event.ApprovalRequested, krCallWriteA)},
	{"run waiting", 0, time.Millisecond, func(v *krRun, ev event.Event) bool {
		var d event.RunStatusData
		return ev.Type == event.RunStatus && ev.Decode(&d) == nil && d.Status == "waiting"
	}},
	{"write a.txt approved", 0, 2 * time.Millisecond, krOnCall(event.ApprovalDecided, krCallWriteA)},
	{"write a.txt executing", 0, 0, krOnCall(event.ToolExecuting, krCallWriteA)},
	{"write a.txt finished", 0, time.Millisecond, krOnCall(event.NodeFinished, krCallWriteA)},
	{"read a.txt executing", 0, 0, krOnCall(event.ToolExecuting, krCallReadA)},
	{"model call 3 started", 0, 5 * time.Millisecond, krOnStep(event.NodeStarted, 3)},
	{"model call 4 streaming", 0, 2 * time.Millisecond, krOnStep(event.LLMDelta, 4)},
	{"write b.txt asked", 0, time.Millisecond, krOnCall(event.ApprovalRequested, krCallWriteB)},
	{"write b.txt approved", 0, 2 * time.Millisecond, krOnCall(event.ApprovalDecided, krCallWriteB)},
	{"write b.txt executing", 0, 0, krOnCall(event.ToolExecuting, krCallWriteB)},
	{"final model call started", 0, 5 * time.Millisecond, krOnStep(event.NodeStarted, 5)},
	{"final answer", 0, time.Millisecond, krOnStep(event.NodeFinished, 5)},
	{"run completed", 0, time.Millisecond, func(v *krRun, ev event.Event) bool {
		var d event.RunStatusData
		return ev.Type == event.RunStatus && ev.Decode(&d) == nil && d.Status == "completed"
	}},
}

// krAgainTrigger kills the restarted server while it drives the recovered
// runs on: as the first tool call of any run starts executing (a retried
// call, often).
var krAgainTrigger = krTrigger{"the next tool.executing of any run", 0, 3 * time.Millisecond, krOnType(event.ToolExecuting)}

// krPlan is the schedule of one kill point.
type krPlan struct {
	index   int
	starts  [krRuns]time.Duration // when each run starts, from the first
	trigger *krTrigger            // nil: kill at delay after the first start
	target  int                   // the run the trigger watches
	delay   time.Duration
	// A second kill, in the first recovery: second after the runs are driven
	// on, or on againTrigger.
	second       time.Duration
	againTrigger *krTrigger
	againDelay   time.Duration
}

func (p krPlan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kill point %d: ", p.index)
	if p.trigger != nil {
		fmt.Fprintf(&b, "on %q of run %d +%v", p.trigger.name, p.target, p.delay.Round(10*time.Microsecond))
	} else {
		fmt.Fprintf(&b, "at %v", p.delay.Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "; runs start at %v/%v/%v", p.starts[0], p.starts[1].Round(time.Millisecond), p.starts[2].Round(time.Millisecond))
	switch {
	case p.second > 0:
		fmt.Fprintf(&b, "; again %v into the recovery", p.second.Round(time.Millisecond))
	case p.againTrigger != nil:
		fmt.Fprintf(&b, "; again on %s +%v", p.againTrigger.name, p.againDelay.Round(10*time.Microsecond))
	}
	return b.String()
}

// krMakePlan makes the schedule of kill point i: two in three fire on an
// event, going round krTriggers; the others at a time spread over krSpan.
// One in four kills again during the recovery.
func krMakePlan(seed uint64, i int) krPlan {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	delay := func(tr *krTrigger) time.Duration {
		if tr.maxDelay <= tr.minDelay {
			return tr.minDelay
		}
		return tr.minDelay + time.Duration(rng.Int64N(int64(tr.maxDelay-tr.minDelay)))
	}
	p := krPlan{index: i}
	for r := 1; r < krRuns; r++ {
		p.starts[r] = time.Duration(rng.Int64N(int64(80*time.Millisecond))) * time.Duration(r)
	}
	if i%3 != 0 {
		tr := &krTriggers[(i-i/3-1)%len(krTriggers)]
		p.trigger, p.target, p.delay = tr, rng.IntN(krRuns), delay(tr)
	} else {
		p.delay = time.Duration(rng.Int64N(int64(krSpan)))
	}
	switch i % 8 {
	case 3:
		p.second = time.Duration(rng.Int64N(int64(400*time.Millisecond))) + time.Millisecond
	case 7:
		p.againTrigger = &krAgainTrigger
		p.againDelay = delay(p.againTrigger)
	}
	return p
}

// krTally is the report.
type krTally struct {
	mu                                sync.Mutex
	kills, runs, recovered, lost      int
	reexecuted, retried               int
	interruptedModel, interruptedTool int
	openApprovals, completedOnRestart int
	pausedInterrupted, reasonInterr   int
	unrecorded                        int
	notCreated, tmpLeft               int
}

func TestKillRecover(t *testing.T) {
	bin := stewardBin(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("STEWARD_KILL_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("STEWARD_KILL_SEED=%q: %v", s, err)
		}
		seed = v
	}
	points := krMinKillPoints
	if s := os.Getenv("STEWARD_KILL_POINTS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("STEWARD_KILL_POINTS=%q: want a positive number", s)
		}
		points = v
	}
	only := -1
	if s := os.Getenv("STEWARD_KILL_ONLY"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			t.Fatalf("STEWARD_KILL_ONLY=%q: want a kill point index", s)
		}
		only = v
	}
	t.Logf("kill-recover: seed %d (replay with STEWARD_KILL_SEED=%d, one kill point with STEWARD_KILL_ONLY=I)", seed, seed)

	dir := t.TempDir()
	scriptPath := filepath.Join(dir, "script.json")
	if err := os.WriteFile(scriptPath, fmt.Appendf(nil, krScript, krChunkDelayMS), 0o644); err != nil {
		t.Fatal(err)
	}
	// One big file, hard-linked into every workspace.
	big := filepath.Join(dir, "big.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte(strings.Repeat("steward kill-recover filler ", 5)+"\n"), 10_000)
	for range krBigLines / 10_000 {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	tally := &krTally{}
	begin := time.Now()
	failed := 0
	for i := range points {
		if only >= 0 && i != only {
			continue
		}
		k := &krPoint{t: t, bin: bin, plan: krMakePlan(seed, i), script: scriptPath, big: big, tally: tally}
		if !k.run() {
			failed++
			t.Errorf("%v (seed %d) failed; replay it with STEWARD_KILL_SEED=%d STEWARD_KILL_ONLY=%d", k.plan, seed, seed, i)
			if failed >= 3 {
				t.Errorf("stopping after %d failed kill points", failed)
				break
			}
		}
	}
	tally.mu.Lock()
	defer tally.mu.Unlock()
	summary := fmt.Sprintf("kill-recover: %d kill points, %d runs, %d recovered, %d events lost, %d re-executed without decision, %d interrupted calls retried",
		tally.kills, tally.runs, tally.recovered, tally.lost, tally.reexecuted, tally.retried)
	detail := fmt.Sprintf("kill-recover: seed %d, %v; interrupted: %d model calls, %d tool calls; %d approvals open across a kill; "+
		"%d runs paused on an interrupted call (%d with a reason other than \"recovered: …\"); %d runs completed by the restart (final answer recorded); "+
		"%d POSTed runs never created; %d temporary files left by killed writes; %d files on disk without tool.executing",
		seed, time.Since(begin).Round(time.Second), tally.interruptedModel, tally.interruptedTool, tally.openApprovals,
		tally.pausedInterrupted, tally.reasonInterr, tally.completedOnRestart, tally.notCreated, tally.tmpLeft, tally.unrecorded)
	t.Log(detail)
	t.Log(summary)
	fmt.Println(summary)
	if p := os.Getenv("STEWARD_KILL_REPORT"); p != "" {
		if err := os.WriteFile(p, []byte(summary+"\n"+detail+"\n"), 0o644); err != nil {
			t.Errorf("write %s: %v", p, err)
		}
	}
	// The full schedule must reach every kind of kill point.
	full := only < 0 && os.Getenv("STEWARD_KILL_POINTS") == ""
	if full && tally.kills < krMinKillPoints {
		t.Errorf("%d kill points, want at least %d", tally.kills, krMinKillPoints)
	}
	if full && tally.retried == 0 {
		t.Errorf("no interrupted tool call was retried: the kill points miss executing tools")
	}
	if tally.lost != 0 {
		t.Errorf("%d committed events lost", tally.lost)
	}
	if tally.reexecuted != 0 {
		t.Errorf("%d tool calls re-executed without a decision", tally.reexecuted)
	}
	if tally.unrecorded != 0 {
		t.Errorf("%d files written without their tool.executing in the log", tally.unrecorded)
	}
}

// krRun is one run of a kill point, as the test saw it.
type krRun struct {
	index int
	instr string
	ws    string
	id    string
	// posted is set once the POST that starts the run was sent; a run whose
	// POST the kill cut is looked up by its instructions after the restart,
	// and gone is set when it was never created.
	posted, gone bool
	seen         []event.Event                    // what the WebSockets delivered, in order, over all phases
	nodes        map[string]event.NodeStartedData // from seen and from the log
	// retries holds, by call id, the ids of the retry commands that were
	// accepted (or cut by a kill): each is the person's decision to execute
	// the call once more. cut holds the commands whose answer a kill cut.
	retries map[string]map[string]bool
	cut     []krCommand
	// pause is what the latest restart made of the run: its recovery
	// run.status (nil when the run had ended before the kill).
	pause *event.RunStatusData
}

func (v *krRun) lastSeen() int64 {
	if len(v.seen) == 0 {
		return 0
	}
	return v.seen[len(v.seen)-1].Seq
}

// krPoint is one kill point.
type krPoint struct {
	t      *testing.T
	bin    string
	plan   krPlan
	script string
	big    string
	tally  *krTally

	home      string
	agent     string
	threshold int64        // ts of the first event the latest server can have written
	logs      lockedBuffer // the output of every server of this kill point
	mu        sync.Mutex   // guards runs' fields and errs
	runs      []*krRun
	errs      []string
}

func (k *krPoint) fail(format string, args ...any) {
	k.mu.Lock()
	k.errs = append(k.errs, fmt.Sprintf(format, args...))
	k.mu.Unlock()
}

func (k *krPoint) failed() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.errs) > 0
}

func (k *krPoint) count(f func(t *krTally)) {
	k.tally.mu.Lock()
	f(k.tally)
	k.tally.mu.Unlock()
}

// run plays the kill point and reports whether every check passed.
func (k *krPoint) run() bool {
	t := k.t
	k.home = t.TempDir()
	for r := range krRuns {
		ws := t.TempDir()
		if err := os.Link(k.big, filepath.Join(ws, "big.txt")); err != nil {
			t.Fatalf("link big.txt: %v", err)
		}
		k.runs = append(k.runs, &krRun{index: r, ws: ws, instr: fmt.Sprintf("kill point %d, run %d", k.plan.index, r),
			nodes: map[string]event.NodeStartedData{}, retries: map[string]map[string]bool{}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	k.play(ctx)
	if k.failed() {
		k.mu.Lock()
		defer k.mu.Unlock()
		t.Logf("%v:\n  %s\nserver output:\n%s", k.plan, strings.Join(k.errs, "\n  "), k.logs.String())
		return false
	}
	return true
}

func (k *krPoint) play(ctx context.Context) {
	srv, err := k.start(0)
	if err != nil {
		k.fail("start: %v", err)
		return
	}
	defer srv.kill() // whatever happens, no server outlives its kill point
	var ag struct {
		ID string `json:"id"`
	}
	if err := srv.c.call(ctx, "POST", "/api/v1/agents", map[string]any{
		"name": "kill-recover", "provider": "script", "script": k.script,
		"tools": []string{"list_dir", "read_file", "write_file"}, "mode": "ask",
	}, &ag); err != nil {
		k.fail("create agent: %v", err)
		return
	}
	k.agent = ag.ID

	// Phase 0: start the runs, kill on the plan's trigger or at its time.
	sess, err := k.session(ctx, srv)
	if err != nil {
		k.fail("%v", err)
		return
	}
	begin := time.Now()
	if k.plan.trigger != nil {
		sess.arm(k.plan.target, k.plan.trigger, k.plan.delay, 0)
	} else {
		time.AfterFunc(k.plan.delay, srv.kill)
	}
	var starting sync.WaitGroup
	for _, v := range k.runs {
		starting.Go(func() { k.startRun(ctx, sess, v, begin.Add(k.plan.starts[v.index])) })
	}
	select {
	case <-srv.exited:
	case <-time.After(20 * time.Second):
		srv.kill()
		k.fail("the kill never fired within 20 s")
	}
	starting.Wait() // a POST the kill cut fails at once
	sess.close()
	if k.failed() {
		return
	}
	k.count(func(t *krTally) { t.kills++ })

	// Then: restart, check the recovery, drive the runs on (killing once
	// more in the first recovery when the plan says so) until all end.
	for phase := 1; ; phase++ {
		srv, err = k.restart(ctx, phase, srv)
		if srv != nil {
			defer srv.kill()
		}
		if err != nil {
			k.fail("phase %d: %v", phase, err)
			return
		}
		// A failed check goes on: driving the runs to their end counts what
		// the failure led to (a call executed again, say).
		sess, err := k.session(ctx, srv)
		if err != nil {
			k.fail("phase %d: %v", phase, err)
			return
		}
		var again *time.Timer
		switch {
		case phase == 1 && k.plan.second > 0:
			again = time.AfterFunc(k.plan.second, srv.kill)
		case phase == 1 && k.plan.againTrigger != nil:
			sess.arm(-1, k.plan.againTrigger, k.plan.againDelay, k.threshold)
		}
		k.driveOn(ctx, sess, phase)
		ended := k.waitEnd(ctx, sess, phase)
		sess.disarm()
		if again != nil {
			again.Stop()
		}
		if srv.dead() {
			ended = false // the kill came: recover once more, even if the runs had ended
			<-srv.exited
		}
		sess.close()
		if ended {
			k.final(ctx, srv)
			if err := srv.stop(); err != nil {
				k.fail("%v", err)
			}
			return
		}
		k.count(func(t *krTally) { t.kills++ })
	}
}

// startRun starts one run at its time, unless the server is dead by then.
func (k *krPoint) startRun(ctx context.Context, s *krSession, v *krRun, at time.Time) {
	select {
	case <-time.After(time.Until(at)):
	case <-s.srv.exited:
		return
	}
	if s.srv.dead() {
		return
	}
	k.mu.Lock()
	v.posted = true
	k.mu.Unlock()
	var r struct {
		ID string `json:"id"`
	}
	err := s.srv.c.call(ctx, "POST", "/api/v1/runs", map[string]any{"agent": k.agent, "instructions": v.instr, "workspace": v.ws}, &r)
	if err != nil {
		if !s.srv.dead() {
			k.fail("start run %d: %v", v.index, err)
		}
		return // cut by the kill: looked up after the restart
	}
	k.mu.Lock()
	v.id = r.ID
	k.mu.Unlock()
	s.subscribe(v, 0)
}

// ---- the server ----

// krServer is one `steward serve` process.
type krServer struct {
	cmd    *exec.Cmd
	c      *krClient
	port   string
	exited chan struct{} // closed once the process is reaped
	mu     sync.Mutex
	killed bool
}

// start starts `steward serve` on the kill point's data directory, with the
// same clean environment as startServe.
func (k *krPoint) start(phase int) (*krServer, error) {
	cmd := exec.Command(k.bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = k.home
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + k.home, "STEWARD_HOME=" + k.home, "STEWARD_DISCOVER=0", "STEWARD_TOKEN=" + krToken}
	// Pdeathsig: a test binary that dies (a timeout) takes its servers along.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout // one pipe, one reader
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &krServer{cmd: cmd, exited: make(chan struct{})}
	found := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			k.logs.add(fmt.Sprintf("[phase %d] %s", phase, sc.Text()))
			if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out) // a line over 1 MiB stops the scanner, not the server
	}()
	go func() {
		<-copied // Wait closes the pipe: read it all first
		_ = cmd.Wait()
		close(s.exited)
	}()
	select {
	case base := <-found:
		u, err := url.Parse(base)
		if err != nil {
			s.kill()
			return nil, err
		}
		s.port = u.Port()
		s.c = &krClient{base: base, hc: &http.Client{Timeout: 10 * time.Second}}
		return s, nil
	case <-s.exited:
		return nil, errors.New("steward serve exited before printing its URL")
	case <-time.After(20 * time.Second):
		s.kill()
		return nil, errors.New("steward serve printed no URL within 20 s")
	}
}

// kill sends SIGKILL (once) and returns at once.
func (s *krServer) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.killed {
		return
	}
	s.killed = true
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
}

// dead reports whether the server was killed or stopped (or is dying):
// from then on a failed request is expected.
func (s *krServer) dead() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.killed
}

// stop ends the server the way a person does (SIGTERM) and waits for it.
func (s *krServer) stop() error {
	s.mu.Lock()
	if s.killed {
		s.mu.Unlock()
		<-s.exited
		return nil
	}
	s.killed = true
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	s.mu.Unlock()
	select {
	case <-s.exited:
		return nil
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
		return errors.New("steward serve did not stop within 10 s of SIGTERM")
	}
}

// krClient calls the REST API with the token.
type krClient struct {
	base string
	hc   *http.Client
}

type krHTTPError struct {
	status int
	body   string
}

func (e *krHTTPError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.body) }

func (c *krClient) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+krToken)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &krHTTPError{status: resp.StatusCode, body: strings.TrimSpace(string(b))}
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// events reads a run's whole log.
func (c *krClient) events(ctx context.Context, runID string) ([]event.Event, error) {
	var all []event.Event
	after := int64(0)
	for {
		var page struct {
			Events    []event.Event `json:"events"`
			NextAfter int64         `json:"next_after"`
			More      bool          `json:"more"`
		}
		if err := c.call(ctx, "GET", fmt.Sprintf("/api/v1/runs/%s/events?after=%d&limit=5000", runID, after), nil, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Events...)
		if !page.More {
			return all, nil
		}
		after = page.NextAfter
	}
}

type krRunInfo struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Reason       string `json:"reason"`
	Error        string `json:"error"`
	Instructions string `json:"instructions"`
}

// ---- a session: one WebSocket, its reader, the approver ----

// krSession watches one server: a WebSocket subscribed to every run records
// each event it delivers (committed, since the server publishes after
// commit), and approves every approval asked, after a short random wait.
type krSession struct {
	k    *krPoint
	srv  *krServer
	conn *websocket.Conn
	wmu  sync.Mutex // one writer at a time on conn
	wg   sync.WaitGroup
	read chan struct{} // closed when the reader ends

	mu      sync.Mutex
	asked   map[string]bool
	rng     *rand.Rand
	trigger *krTrigger
	target  int
	delay   time.Duration
	minTS   int64
}

func (k *krPoint) session(ctx context.Context, srv *krServer) (*krSession, error) {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+krToken)
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	conn, _, err := d.DialContext(ctx, "ws://127.0.0.1:"+srv.port+"/api/v1/ws", h)
	if err != nil {
		return nil, fmt.Errorf("websocket: %w", err)
	}
	s := &krSession{k: k, srv: srv, conn: conn, read: make(chan struct{}), asked: map[string]bool{},
		rng: rand.New(rand.NewPCG(uint64(k.plan.index), uint64(time.Now().UnixNano())))}
	go s.reader()
	k.mu.Lock()
	var subs []*krRun
	for _, v := range k.runs {
		if v.id != "" {
			subs = append(subs, v)
		}
	}
	k.mu.Unlock()
	for _, v := range subs {
		s.subscribe(v, v.lastSeen())
	}
	return s, nil
}

// arm makes the session kill the server delay after it delivers an event
// that tr matches, of run target (any run when target < 0) and written at
// minTS or later.
func (s *krSession) arm(target int, tr *krTrigger, delay time.Duration, minTS int64) {
	s.mu.Lock()
	s.trigger, s.target, s.delay, s.minTS = tr, target, delay, minTS
	s.mu.Unlock()
}

func (s *krSession) disarm() {
	s.mu.Lock()
	s.trigger = nil
	s.mu.Unlock()
}

func (s *krSession) subscribe(v *krRun, after int64) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = s.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	err := s.conn.WriteJSON(map[string]any{"type": "subscribe", "id": "sub-" + v.id, "run_id": v.id, "after": after})
	if err != nil && !s.srv.dead() {
		s.k.fail("subscribe to %s: %v", v.id, err)
	}
}

func (s *krSession) reader() {
	defer close(s.read)
	for {
		var m struct {
			Type    string       `json:"type"`
			Event   *event.Event `json:"event"`
			Code    string       `json:"code"`
			Message string       `json:"message"`
		}
		if err := s.conn.ReadJSON(&m); err != nil {
			return
		}
		switch m.Type {
		case "event":
			if m.Event != nil {
				s.record(*m.Event)
			}
		case "error":
			s.k.fail("websocket error %s: %s", m.Code, m.Message)
		}
	}
}

// record keeps a delivered event, fires the kill trigger and hands
// approvals to the approver.
func (s *krSession) record(ev event.Event) {
	k := s.k
	k.mu.Lock()
	var v *krRun
	for _, r := range k.runs {
		if r.id == ev.RunID {
			v = r
		}
	}
	if v == nil {
		k.mu.Unlock()
		k.fail("event of an unknown run %s", ev.RunID)
		return
	}
	if want := v.lastSeen() + 1; ev.Seq != want {
		k.mu.Unlock()
		k.fail("run %d: the websocket delivered seq %d after %d (%s)", v.index, ev.Seq, want-1, ev.Type)
		return
	}
	v.seen = append(v.seen, ev)
	if ev.Type == event.NodeStarted {
		var d event.NodeStartedData
		_ = ev.Decode(&d)
		v.nodes[ev.NodeID] = d
	}
	s.mu.Lock()
	fire := s.trigger != nil && (s.target < 0 || v.index == s.target) && ev.TS >= s.minTS && s.trigger.match(v, ev)
	if fire {
		s.trigger = nil
	}
	delay := s.delay
	s.mu.Unlock()
	k.mu.Unlock()
	if fire {
		if delay <= 0 {
			s.srv.kill()
		} else {
			time.AfterFunc(delay, s.srv.kill)
		}
	}
	if ev.Type == event.ApprovalRequested {
		var d event.ApprovalRequestedData
		_ = ev.Decode(&d)
		s.approve(d.InteractionID)
	}
}

// approve answers an interaction after a random wait of up to 30 ms, so
// that kills find approvals open as well as answered.
func (s *krSession) approve(id string) {
	s.mu.Lock()
	if s.asked[id] {
		s.mu.Unlock()
		return
	}
	s.asked[id] = true
	wait := time.Duration(s.rng.Int64N(int64(30 * time.Millisecond)))
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		select {
		case <-time.After(wait):
		case <-s.srv.exited:
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := s.srv.c.call(ctx, "POST", "/api/v1/interactions/"+id+"/answer", map[string]any{"decision": "approve", "source": "api"}, nil)
		var he *krHTTPError
		switch {
		case err == nil, errors.As(err, &he) && he.status == http.StatusConflict: // answered before the kill
		case s.srv.dead():
		default:
			s.k.fail("approve %s: %v", id, err)
		}
	}()
}

// approvePending approves what the inbox holds: approvals asked before a
// kill and not answered.
func (s *krSession) approvePending(ctx context.Context) {
	var body struct {
		Interactions []struct {
			ID string `json:"id"`
		} `json:"interactions"`
	}
	if err := s.srv.c.call(ctx, "GET", "/api/v1/interactions?status=pending", nil, &body); err != nil {
		if !s.srv.dead() {
			s.k.fail("list pending interactions: %v", err)
		}
		return
	}
	for _, it := range body.Interactions {
		s.approve(it.ID)
	}
}

// close ends the session. After a kill the reader first drains what the
// connection still holds: those events were committed too.
func (s *krSession) close() {
	if s.srv.dead() {
		select {
		case <-s.read:
		case <-time.After(5 * time.Second):
			s.k.fail("the websocket stayed open 5 s after the server died")
		}
	}
	_ = s.conn.Close()
	<-s.read
	s.wg.Wait()
}

// ---- recovery ----

// restart waits for the killed server to be gone, starts a new one on the
// same data directory and checks what it made of every run.
func (k *krPoint) restart(ctx context.Context, phase int, old *krServer) (*krServer, error) {
	<-old.exited
	// What the dead process left on disk: a written file must have its
	// tool.executing committed.
	type onDisk struct{ a, b bool }
	files := map[*krRun]onDisk{}
	for _, v := range k.runs {
		_, ea := os.Stat(filepath.Join(v.ws, "a.txt"))
		_, eb := os.Stat(filepath.Join(v.ws, "b.txt"))
		files[v] = onDisk{a: ea == nil, b: eb == nil}
	}
	// Every event the dead process committed has ts ≤ now; every event of
	// the new one comes later. Wait for the next millisecond to separate them.
	deadMS := time.Now().UnixMilli()
	for time.Now().UnixMilli() <= deadMS {
		time.Sleep(100 * time.Microsecond)
	}
	threshold := time.Now().UnixMilli()
	k.threshold = threshold
	srv, err := k.start(phase)
	if err != nil {
		return nil, err
	}
	c := srv.c

	// Runs whose POST the kill cut: created or not.
	var lost []*krRun
	k.mu.Lock()
	for _, v := range k.runs {
		if v.posted && v.id == "" && !v.gone {
			lost = append(lost, v)
		}
	}
	k.mu.Unlock()
	if len(lost) > 0 {
		var body struct {
			Runs []krRunInfo `json:"runs"`
		}
		if err := c.call(ctx, "GET", "/api/v1/runs?limit=1000", nil, &body); err != nil {
			return srv, fmt.Errorf("list runs: %w", err)
		}
		for _, v := range lost {
			for _, r := range body.Runs {
				if r.Instructions == v.instr {
					v.id = r.ID
				}
			}
			if v.id == "" {
				v.gone = true
				k.count(func(t *krTally) { t.notCreated++ })
			}
		}
	}

	for _, v := range k.runs {
		if v.id == "" {
			continue
		}
		if err := k.checkRecovery(ctx, c, phase, v, threshold, files[v].a, files[v].b); err != nil {
			return srv, err
		}
	}
	return srv, nil
}

// checkRecovery checks one run after a restart: the new process's events
// are those with ts ≥ threshold; before them is what the killed one
// committed.
func (k *krPoint) checkRecovery(ctx context.Context, c *krClient, phase int, v *krRun, threshold int64, hasA, hasB bool) error {
	var log, pre, post []event.Event
	preStatus := "queued"
	deadline := time.Now().Add(15 * time.Second)
	for {
		var err error
		log, err = c.events(ctx, v.id)
		if err != nil {
			return fmt.Errorf("run %d: events: %w", v.index, err)
		}
		pre, post = nil, nil
		for _, ev := range log {
			if ev.TS < threshold {
				if len(post) > 0 {
					return fmt.Errorf("run %d: event %d (%s, ts %d) was written before the restart but follows one written after it", v.index, ev.Seq, ev.Type, ev.TS)
				}
				pre = append(pre, ev)
			} else {
				post = append(post, ev)
			}
		}
		for _, ev := range pre {
			if ev.Type == event.RunStatus {
				var d event.RunStatusData
				_ = ev.Decode(&d)
				preStatus = d.Status
			}
		}
		if krTerminal(preStatus) || krRecoveryStatus(post) != nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("run %d (%s) was %s at the kill and did not recover within 15 s: after the restart it has %s",
				v.index, v.id, preStatus, krDescribe(post))
		}
		time.Sleep(10 * time.Millisecond)
	}

	k.mu.Lock()
	defer k.mu.Unlock()
	for _, ev := range log {
		if ev.Type == event.NodeStarted {
			var d event.NodeStartedData
			_ = ev.Decode(&d)
			v.nodes[ev.NodeID] = d
		}
	}
	// No committed event is lost.
	lost := krCompare(v, log, threshold)
	for _, msg := range lost {
		k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: %s", phase, v.index, msg))
	}
	k.count(func(t *krTally) { t.lost += len(lost) })

	v.pause = nil
	if krTerminal(preStatus) {
		if len(post) > 0 {
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d had ended (%s) but the restart added %s", phase, v.index, preStatus, krDescribe(post)))
		}
		return nil
	}

	// The run was active: the restart must have recovered it, and done
	// nothing on its own.
	st := krRecoveryStatus(post)
	v.pause = st
	k.count(func(t *krTally) { t.recovered++ })
	for _, ev := range post {
		switch {
		case ev.Type == event.ToolExecuting:
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: the restart executed node %s on its own", phase, v.index, ev.NodeID))
		case ev.Type == event.NodeStarted && (v.nodes[ev.NodeID].Kind == event.KindLLM || v.nodes[ev.NodeID].Kind == event.KindTool):
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: the restart started %s node %s on its own", phase, v.index, v.nodes[ev.NodeID].Kind, ev.NodeID))
		}
	}
	// What was in flight is interrupted: a model call that started and did
	// not finish, a tool call whose tool.executing committed and that did
	// not finish.
	finishedPre, finishedPost := map[string]event.NodeFinishedData{}, map[string]event.NodeFinishedData{}
	executing := map[string]bool{}
	for _, ev := range log {
		switch ev.Type {
		case event.NodeFinished:
			var d event.NodeFinishedData
			_ = ev.Decode(&d)
			if ev.TS < threshold {
				finishedPre[ev.NodeID] = d
			} else {
				finishedPost[ev.NodeID] = d
			}
		case event.ToolExecuting:
			if ev.TS < threshold {
				executing[ev.NodeID] = true
			}
		}
	}
	var interrupted []string
	for _, ev := range pre {
		if ev.Type != event.NodeStarted {
			continue
		}
		n := v.nodes[ev.NodeID]
		if _, done := finishedPre[ev.NodeID]; done {
			continue
		}
		inFlight := n.Kind == event.KindLLM || (n.Kind == event.KindTool && executing[ev.NodeID])
		f, closed := finishedPost[ev.NodeID]
		switch {
		case inFlight && (!closed || f.Status != event.NodeInterrupted):
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: %s node %s was in flight at the kill; after the restart: %+v (closed %v), want interrupted",
				phase, v.index, n.Kind, ev.NodeID, f, closed))
		case inFlight && n.Kind == event.KindLLM:
			k.count(func(t *krTally) { t.interruptedModel++ })
		case inFlight:
			interrupted = append(interrupted, ev.NodeID)
			k.count(func(t *krTally) { t.interruptedTool++ })
		case closed && n.Kind != event.KindAgent:
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: the restart closed %s node %s, which was not in flight: %+v", phase, v.index, n.Kind, ev.NodeID, f))
		}
	}
	// The run waits, paused, for the person; or, when its final answer was
	// already recorded, it is complete.
	switch st.Status {
	case "completed":
		k.count(func(t *krTally) { t.completedOnRestart++ })
		if !krFinalRecorded(v, pre) {
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d completed on restart without a final answer in its log", phase, v.index))
		}
	case "paused":
		next := st.Next
		if len(interrupted) > 0 && (next == nil || !next.Interrupted || next.NodeID != interrupted[0]) {
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: tool node %s was interrupted by the kill, but the run waits on %+v", phase, v.index, interrupted[0], next))
		}
		switch {
		case next == nil:
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d paused on restart without saying what comes next", phase, v.index))
		case next.Interrupted:
			k.count(func(t *krTally) { t.pausedInterrupted++ })
			if !strings.HasPrefix(st.Reason, "recovered: ") {
				k.count(func(t *krTally) { t.reasonInterr++ })
				k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d paused on an interrupted call with reason %q, want recovered: …", phase, v.index, st.Reason))
			}
			if f, ok := finishedPost[next.NodeID]; !ok && finishedPre[next.NodeID].Status != event.NodeInterrupted || ok && f.Status != event.NodeInterrupted {
				k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d waits on node %s as interrupted, but the log does not say it was", phase, v.index, next.NodeID))
			}
		default:
			if st.Reason != "recovered" {
				k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d paused with reason %q, want recovered", phase, v.index, st.Reason))
			}
			if slices.Contains(interrupted, next.NodeID) {
				k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: interrupted node %s is next but not marked interrupted", phase, v.index, next.NodeID))
			}
		}
	}
	// A file on disk had its tool.executing committed first.
	for _, f := range []struct {
		on   bool
		call string
	}{{hasA, krCallWriteA}, {hasB, krCallWriteB}} {
		if !f.on {
			continue
		}
		marked := false
		for node := range executing {
			marked = marked || v.nodes[node].CallID == f.call
		}
		if !marked {
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: the file of %s is on disk but its tool.executing was not committed", phase, v.index, f.call))
			k.count(func(t *krTally) { t.unrecorded++ })
		}
	}
	// An approval open at the kill is still open.
	decided := map[string]bool{}
	for _, ev := range pre {
		if ev.Type == event.ApprovalDecided {
			var d event.ApprovalDecidedData
			_ = ev.Decode(&d)
			decided[d.InteractionID] = true
		}
	}
	for _, ev := range pre {
		if ev.Type != event.ApprovalRequested {
			continue
		}
		var d event.ApprovalRequestedData
		_ = ev.Decode(&d)
		if decided[d.InteractionID] {
			continue
		}
		var it struct {
			Interactions []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"interactions"`
		}
		if err := c.call(ctx, "GET", "/api/v1/interactions?run_id="+v.id, nil, &it); err != nil {
			return fmt.Errorf("interactions: %w", err)
		}
		found := false
		for _, i := range it.Interactions {
			if i.ID == d.InteractionID {
				found = true
				if i.Status != "pending" {
					k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: approval %s was open at the kill and is %s after the restart", phase, v.index, i.ID, i.Status))
				}
			}
		}
		if !found {
			k.errs = append(k.errs, fmt.Sprintf("phase %d: run %d: approval %s vanished", phase, v.index, d.InteractionID))
		}
		k.count(func(t *krTally) { t.openApprovals++ })
	}
	return nil
}

// driveOn answers what the restart left waiting: approvals, then a retry
// for a run paused on an interrupted call (the person's new decision) and a
// continue for any other paused run. A command whose answer the kill cut is
// first sent again with the same command_id, as a client does after a
// reconnection: it applies once, whatever the kill left of it. The new
// command may then find the run already going (rejected, invalid_state).
func (k *krPoint) driveOn(ctx context.Context, s *krSession, phase int) {
	s.approvePending(ctx)
	k.mu.Lock()
	var todo []*krRun
	for _, v := range k.runs {
		if v.id != "" && v.pause != nil && v.pause.Status == "paused" {
			todo = append(todo, v)
		}
	}
	k.mu.Unlock()
	for _, v := range todo {
		resent := false
		k.mu.Lock()
		cut := v.cut
		v.cut = nil
		k.mu.Unlock()
		for _, c := range cut {
			res, ok := k.command(ctx, s, v, c)
			resent = resent || ok && res.Status == "accepted"
		}
		cmd := krCommand{ID: fmt.Sprintf("kr-%d-%d-%d", k.plan.index, phase, v.index), Type: "continue"}
		if n := v.pause.Next; n != nil && n.Interrupted {
			cmd.Type, cmd.NodeID = "retry", n.NodeID
		}
		res, ok := k.command(ctx, s, v, cmd)
		if ok && res.Status != "accepted" && !(resent && res.Code == "invalid_state") {
			k.fail("phase %d: run %d: %s %s: %s %s", phase, v.index, cmd.Type, v.id, res.Code, res.Message)
		}
	}
}

// krCommand is a run command as the API takes it.
type krCommand struct {
	ID     string `json:"command_id"`
	Type   string `json:"type"`
	NodeID string `json:"node_id,omitempty"`
}

type krCommandResult struct {
	Status  string `json:"status"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// command sends c. A retry that was accepted, or whose answer the kill cut,
// is a decision to execute its call once more. ok is false when there is no
// answer.
func (k *krPoint) command(ctx context.Context, s *krSession, v *krRun, c krCommand) (res krCommandResult, ok bool) {
	if s.srv.dead() {
		k.mu.Lock()
		v.cut = append(v.cut, c) // never sent: sent next time
		k.mu.Unlock()
		return res, false
	}
	err := s.srv.c.call(ctx, "POST", "/api/v1/runs/"+v.id+"/commands", c, &res)
	switch {
	case err != nil && !s.srv.dead():
		k.fail("run %d: %s: %v", v.index, c.Type, err)
		return res, false
	case err != nil:
		k.mu.Lock()
		v.cut = append(v.cut, c)
		k.mu.Unlock()
	case res.Status != "accepted":
		return res, true
	}
	if c.Type == "retry" {
		k.mu.Lock()
		call := v.nodes[c.NodeID].CallID
		if v.retries[call] == nil {
			v.retries[call] = map[string]bool{}
		}
		if !v.retries[call][c.ID] {
			v.retries[call][c.ID] = true
			k.count(func(t *krTally) { t.retried++ })
		}
		k.mu.Unlock()
	}
	return res, err == nil
}

// waitEnd waits until every run has ended (true) or the server died
// (false). A run that fails or is cancelled is an error.
func (k *krPoint) waitEnd(ctx context.Context, s *krSession, phase int) bool {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if s.srv.dead() {
			return false
		}
		all := true
		for _, v := range k.runs {
			if v.id == "" {
				continue
			}
			var r krRunInfo
			if err := s.srv.c.call(ctx, "GET", "/api/v1/runs/"+v.id, nil, &r); err != nil {
				if s.srv.dead() {
					return false
				}
				k.fail("phase %d: run %d: %v", phase, v.index, err)
				return true
			}
			switch r.Status {
			case "completed":
			case "failed", "cancelled":
				k.fail("phase %d: run %d ended %s: %s %s", phase, v.index, r.Status, r.Reason, r.Error)
			default:
				all = false
				if time.Now().After(deadline) {
					k.fail("phase %d: run %d is still %s (%s) after 30 s", phase, v.index, r.Status, r.Reason)
					return true
				}
			}
		}
		if all {
			return true
		}
		select {
		case <-s.srv.exited:
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// final checks every run once all have ended.
func (k *krPoint) final(ctx context.Context, srv *krServer) {
	for _, v := range k.runs {
		if v.id == "" {
			continue
		}
		k.count(func(t *krTally) { t.runs++ })
		log, err := srv.c.events(ctx, v.id)
		if err != nil {
			k.fail("run %d: events: %v", v.index, err)
			continue
		}
		k.mu.Lock()
		msgs := krCompare(v, log, 1<<62)
		k.count(func(t *krTally) { t.lost += len(msgs) })
		for _, ev := range log {
			if ev.Type == event.NodeStarted {
				var d event.NodeStartedData
				_ = ev.Decode(&d)
				v.nodes[ev.NodeID] = d
			}
		}
		msgs = append(msgs, krCheckLog(v, log)...)
		// No tool call executed more often than once plus the retries the
		// person asked for.
		execs, asks := map[string]int{}, map[string]int{}
		for _, ev := range log {
			switch ev.Type {
			case event.ToolExecuting:
				execs[v.nodes[ev.NodeID].CallID]++
			case event.ApprovalRequested:
				asks[v.nodes[ev.NodeID].CallID]++
			}
		}
		for call, n := range execs {
			if extra := n - 1 - len(v.retries[call]); extra > 0 {
				msgs = append(msgs, fmt.Sprintf("%s executed %d times with %d retries", call, n, len(v.retries[call])))
				k.count(func(t *krTally) { t.reexecuted += extra })
			}
		}
		for _, call := range []string{krCallList, krCallBig, krCallWriteA, krCallReadA, krCallWriteB} {
			if execs[call] == 0 {
				msgs = append(msgs, fmt.Sprintf("%s never executed", call))
			}
		}
		for call, n := range asks {
			if n > 1 {
				msgs = append(msgs, fmt.Sprintf("the approval of %s was asked %d times", call, n))
			}
		}
		k.mu.Unlock()
		// The files hold what the script wrote, read back in between.
		for name, want := range map[string]string{"a.txt": "A: " + v.instr, "b.txt": "B: A: " + v.instr} {
			b, err := os.ReadFile(filepath.Join(v.ws, name))
			if err != nil || string(b) != want {
				msgs = append(msgs, fmt.Sprintf("%s = %q (%v), want %q", name, b, err, want))
			}
		}
		if tmp, _ := filepath.Glob(filepath.Join(v.ws, ".steward-*.tmp")); len(tmp) > 0 {
			k.count(func(t *krTally) { t.tmpLeft += len(tmp) })
		}
		for _, m := range msgs {
			k.fail("run %d (%s): %s", v.index, v.id, m)
		}
	}
}

// ---- log helpers ----

func krTerminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// krRecoveryStatus is the first run.status the new process wrote, if it is
// a pause or the end.
func krRecoveryStatus(post []event.Event) *event.RunStatusData {
	for _, ev := range post {
		if ev.Type == event.RunStatus {
			var d event.RunStatusData
			_ = ev.Decode(&d)
			if d.Status == "paused" || krTerminal(d.Status) {
				return &d
			}
		}
	}
	return nil
}

// krFinalRecorded reports whether the last model call of pre answered with
// no tool calls: the run had nothing left to do.
func krFinalRecorded(v *krRun, pre []event.Event) bool {
	final := false
	for _, ev := range pre {
		if ev.Type != event.NodeFinished || v.nodes[ev.NodeID].Kind != event.KindLLM {
			continue
		}
		var d event.NodeFinishedData
		_ = ev.Decode(&d)
		if d.Status == event.NodeSucceeded {
			final = len(d.ToolCalls) == 0
		}
	}
	return final
}

// krCompare finds the events the WebSocket delivered (with ts below limit)
// that the log lacks or holds differently.
func krCompare(v *krRun, log []event.Event, limit int64) []string {
	var msgs []string
	for _, ev := range v.seen {
		if ev.TS >= limit {
			msgs = append(msgs, fmt.Sprintf("event %d (%s) was delivered before the kill but has ts %d, after the restart", ev.Seq, ev.Type, ev.TS))
			continue
		}
		if ev.Seq < 1 || ev.Seq > int64(len(log)) {
			msgs = append(msgs, fmt.Sprintf("event %d (%s %s) was delivered but is not in the log (last seq %d)", ev.Seq, ev.Type, ev.NodeID, int64(len(log))))
			continue
		}
		got := log[ev.Seq-1]
		if got.Seq != ev.Seq || got.TS != ev.TS || got.Type != ev.Type || got.NodeID != ev.NodeID || !krSameJSON(got.Data, ev.Data) {
			msgs = append(msgs, fmt.Sprintf("event %d was delivered as %s %s %s and is %d %s %s %s in the log", ev.Seq, ev.Type, ev.NodeID, ev.Data, got.Seq, got.Type, got.NodeID, got.Data))
		}
	}
	return msgs
}

func krSameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// krCheckLog checks the shape of a finished run's log: dense seqs, every
// node started once and finished exactly once, the run completed with the
// script's final answer.
func krCheckLog(v *krRun, log []event.Event) []string {
	var msgs []string
	started, finished := map[string]int{}, map[string]int{}
	lastStatus, lastText := "", ""
	for i, ev := range log {
		if ev.Seq != int64(i+1) {
			msgs = append(msgs, fmt.Sprintf("seq %d at position %d", ev.Seq, i+1))
		}
		switch ev.Type {
		case event.NodeStarted:
			started[ev.NodeID]++
		case event.NodeFinished:
			if started[ev.NodeID] == 0 {
				msgs = append(msgs, fmt.Sprintf("node %s finished before it started", ev.NodeID))
			}
			finished[ev.NodeID]++
			var d event.NodeFinishedData
			_ = ev.Decode(&d)
			if v.nodes[ev.NodeID].Kind == event.KindLLM && d.Status == event.NodeSucceeded {
				lastText = d.Text
			}
		case event.RunStatus:
			var d event.RunStatusData
			_ = ev.Decode(&d)
			lastStatus = d.Status
		}
	}
	for node, n := range started {
		if n != 1 || finished[node] != 1 {
			msgs = append(msgs, fmt.Sprintf("node %s started %d times and finished %d times", node, n, finished[node]))
		}
	}
	if lastStatus != "completed" || lastText != krFinalText {
		msgs = append(msgs, fmt.Sprintf("the run ended %s with the answer %q", lastStatus, lastText))
	}
	return msgs
}

// krDescribe lists events briefly, for messages.
func krDescribe(evs []event.Event) string {
	if len(evs) == 0 {
		return "no events"
	}
	parts := make([]string, len(evs))
	for i, ev := range evs {
		parts[i] = fmt.Sprintf("%d %s %s %s", ev.Seq, ev.Type, ev.NodeID, ev.Data)
	}
	return strings.Join(parts, "; ")
}
