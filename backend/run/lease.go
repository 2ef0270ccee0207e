package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"steward/backend/store"
)

// A run is driven by one process at a time. The driver holds a lease on the
// run in the database and renews it while it lives; another process (a server
// started beside `steward run`) leaves a run alone while its lease is live.
// The lease names its holder by the instance of the store it was taken
// through, which is new at every start of a process, and the store tells a
// holder whose process ended (a crash, SIGKILL, a container restarted) by a
// lock the kernel dropped, whatever pid the new process got: a restarted
// server resumes its runs at once, without waiting for the lease to expire.
const (
	leaseTTL   = 15 * time.Second
	leaseRenew = 5 * time.Second
)

// ErrDriven is returned when another live process drives the run.
var ErrDriven = errors.New("another Steward process drives this run")

// acquire takes the lease of runID for this service. Taking it from a
// holder that is gone is logged, as is a live holder that keeps it.
func (s *Service) acquire(ctx context.Context, runID string) error {
	prev, ok, err := s.cfg.Store.AcquireLease(context.WithoutCancel(ctx), runID, s.owner, leaseTTL)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("run %s: %w (pid %d)", runID, ErrDriven, prev.PID)
	}
	if prev != (store.Holder{}) {
		s.cfg.Logf("run %s: taken over from a Steward process that stopped (pid %d)", runID, prev.PID)
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
