package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// AcquireLease makes owner the driver of runID until ttl from now. When
// another owner holds the lease, owner gets it only if that lease expired or
// canTake(holder) says its holder is gone. It reports whether owner holds the
// lease now.
func (s *Store) AcquireLease(ctx context.Context, runID, owner string, ttl time.Duration, canTake func(holder string) bool) (bool, error) {
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return false, ErrClosed
	}
	now := s.ms()
	tx, err := s.w.BeginTx(ctx, nil) // immediate: the check and the write are one
	if err != nil {
		return false, fmt.Errorf("acquire lease of %s: %w", runID, err)
	}
	defer tx.Rollback()
	var holder string
	var expires int64
	err = tx.QueryRowContext(ctx, `SELECT owner, expires_at FROM leases WHERE run_id = ?`, runID).Scan(&holder, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return false, fmt.Errorf("acquire lease of %s: %w", runID, err)
	case holder != owner && expires >= now && (canTake == nil || !canTake(holder)):
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO leases(run_id, owner, expires_at) VALUES (?, ?, ?)
		ON CONFLICT(run_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at`,
		runID, owner, now+ttl.Milliseconds()); err != nil {
		return false, fmt.Errorf("acquire lease of %s: %w", runID, err)
	}
	return true, tx.Commit()
}

// RenewLeases extends every lease of owner to ttl from now.
func (s *Store) RenewLeases(ctx context.Context, owner string, ttl time.Duration) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE leases SET expires_at = ? WHERE owner = ?`, s.ms()+ttl.Milliseconds(), owner); err != nil {
		return fmt.Errorf("renew leases: %w", err)
	}
	return nil
}

// ReleaseLease ends owner's lease of runID.
func (s *Store) ReleaseLease(ctx context.Context, runID, owner string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM leases WHERE run_id = ? AND owner = ?`, runID, owner); err != nil {
		return fmt.Errorf("release lease of %s: %w", runID, err)
	}
	return nil
}

// LeaseHolder returns the holder of runID's lease if it has not expired.
func (s *Store) LeaseHolder(ctx context.Context, runID string) (string, bool, error) {
	var holder string
	var expires int64
	err := s.r.QueryRowContext(ctx, `SELECT owner, expires_at FROM leases WHERE run_id = ?`, runID).Scan(&holder, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("lease of %s: %w", runID, err)
	}
	return holder, expires >= s.ms(), nil
}
