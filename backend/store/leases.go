package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// AcquireLease makes owner the driver of runID until ttl from now. When
// another holder has the lease, owner gets it only if that lease expired or
// its holder is gone (see holders.go): a holder is never judged by its pid.
// It reports whether owner holds the lease now and the other holder found,
// if any: the live one that keeps the lease, or the gone one it was taken
// from.
func (s *Store) AcquireLease(ctx context.Context, runID string, owner Holder, ttl time.Duration) (Holder, bool, error) {
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return Holder{}, false, ErrClosed
	}
	now := s.ms()
	tx, err := s.w.BeginTx(ctx, nil) // immediate: the check and the write are one
	if err != nil {
		return Holder{}, false, fmt.Errorf("acquire lease of %s: %w", runID, err)
	}
	defer tx.Rollback()
	var holder string
	var expires int64
	var prev Holder
	err = tx.QueryRowContext(ctx, `SELECT owner, expires_at FROM leases WHERE run_id = ?`, runID).Scan(&holder, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return Holder{}, false, fmt.Errorf("acquire lease of %s: %w", runID, err)
	case holder != owner.String():
		prev = parseHolder(holder)
		if expires >= now && s.alive(prev) {
			return prev, false, nil
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO leases(run_id, owner, expires_at) VALUES (?, ?, ?)
		ON CONFLICT(run_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at`,
		runID, owner.String(), now+ttl.Milliseconds()); err != nil {
		return Holder{}, false, fmt.Errorf("acquire lease of %s: %w", runID, err)
	}
	return prev, true, tx.Commit()
}

// RenewLeases extends every lease of owner to ttl from now.
func (s *Store) RenewLeases(ctx context.Context, owner Holder, ttl time.Duration) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE leases SET expires_at = ? WHERE owner = ?`, s.ms()+ttl.Milliseconds(), owner.String()); err != nil {
		return fmt.Errorf("renew leases: %w", err)
	}
	return nil
}

// ReleaseLease ends owner's lease of runID.
func (s *Store) ReleaseLease(ctx context.Context, runID string, owner Holder) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM leases WHERE run_id = ? AND owner = ?`, runID, owner.String()); err != nil {
		return fmt.Errorf("release lease of %s: %w", runID, err)
	}
	return nil
}

// LeaseHolder returns the holder of runID's lease, and whether it is live:
// not expired, and its holder not gone.
func (s *Store) LeaseHolder(ctx context.Context, runID string) (Holder, bool, error) {
	var holder string
	var expires int64
	err := s.r.QueryRowContext(ctx, `SELECT owner, expires_at FROM leases WHERE run_id = ?`, runID).Scan(&holder, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return Holder{}, false, nil
	}
	if err != nil {
		return Holder{}, false, fmt.Errorf("lease of %s: %w", runID, err)
	}
	h := parseHolder(holder)
	return h, expires >= s.ms() && s.alive(h), nil
}
