package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A run is driven by one process at a time. The driver holds a lease on the
// run in the database and renews it while it lives; another process (a server
// started beside `steward run`) leaves a run alone while its lease is live
// and its holder's process exists. A holder that died (a crash, SIGKILL) is
// detected at once by its process id, so a restarted server resumes its runs
// without waiting for the lease to expire.
const (
	leaseTTL   = 15 * time.Second
	leaseRenew = 5 * time.Second
)

// ErrDriven is returned when another live process drives the run.
var ErrDriven = errors.New("another Steward process drives this run")

// newOwner names this process as a lease holder: its pid and a random part.
func newOwner(newID func(string) string) string {
	return strconv.Itoa(os.Getpid()) + ":" + newID("proc")
}

// holderGone reports whether the process that holds a lease has died. A
// holder of another form is taken to be alive until its lease expires.
func holderGone(holder string) bool {
	pidStr, _, ok := strings.Cut(holder, ":")
	pid, err := strconv.Atoi(pidStr)
	if !ok || err != nil || pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return false // this process: a lease of another Service here is live
	}
	// A killed process not yet reaped by its parent is a zombie: gone too.
	if stat, err := os.ReadFile("/proc/" + pidStr + "/stat"); err == nil {
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
			return stat[i+2] == 'Z' || stat[i+2] == 'X'
		}
	}
	err = syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH)
}

// acquire takes the lease of runID for this service.
func (s *Service) acquire(ctx context.Context, runID string) error {
	ok, err := s.cfg.Store.AcquireLease(context.WithoutCancel(ctx), runID, s.owner, leaseTTL, holderGone)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("run %s: %w", runID, ErrDriven)
	}
	s.heartbeat.Do(func() {
		s.wg.Add(1)
		go s.renewLeases()
	})
	return nil
}

// renewLeases keeps this process's leases alive until Shutdown.
func (s *Service) renewLeases() {
	defer s.wg.Done()
	t := time.NewTicker(leaseRenew)
	defer t.Stop()
	for {
		select {
		case <-s.base.Done():
			return
		case <-t.C:
			if err := s.cfg.Store.RenewLeases(context.Background(), s.owner, leaseTTL); err != nil {
				s.cfg.Logf("renew leases: %v", err)
			}
		}
	}
}

func (s *Service) release(runID string) {
	if err := s.cfg.Store.ReleaseLease(context.Background(), runID, s.owner); err != nil {
		s.cfg.Logf("run %s: %v", runID, err)
	}
}
