//go:build linux

package e2e

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
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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
