package run

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

func TestHolderGone(t *testing.T) {
	t.Parallel()
	if holderGone(strconv.Itoa(os.Getpid()) + ":me") {
		t.Error("this process counts as gone")
	}
	if holderGone("not-a-pid") || holderGone("") {
		t.Error("a holder of another form counts as gone")
	}
	// A child that exited but was not reaped yet is a zombie: gone.
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	for i := 0; i < 1000; i++ {
		if holderGone(pid + ":child") {
			break
		}
		if b, err := os.ReadFile("/proc/" + pid + "/stat"); err == nil && len(b) > 0 && i == 999 {
			t.Errorf("an exited, unreaped child counts as alive: %s", b)
		}
		time.Sleep(2 * time.Millisecond)
	}
	_ = cmd.Wait()
	if !holderGone(pid + ":child") {
		t.Error("a reaped child counts as alive")
	}
}
