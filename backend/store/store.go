// Package store keeps Steward's state in SQLite (github.com/mattn/go-sqlite3):
// the append-only event log of every run and the projections read from it
// (runs, nodes, edges, interactions), plus agents, applied commands and the
// leases of the processes that drive runs (holders.go says how a lease's
// holder is known to be gone).
//
// Guarantees:
//   - One writer. All writes go through one connection; event appends go
//     through one goroutine that group-commits whatever is pending in a single
//     transaction, so a burst of appends costs one commit.
//   - An event and the projection rows it changes commit together.
//   - Append returns only after the commit, and the Publisher is told of the
//     batch after the commit and before any appender is released, so nothing
//     reaches a subscriber before it is durable.
//   - seq is dense per run, starting at 1, assigned here.
//   - A command's answer and the events of its effect commit together
//     (SubmitCommand).
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/mattn/go-sqlite3" // registers the sqlite3 driver

	"steward/backend/event"
	"steward/backend/osext"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Publisher receives committed events, in commit order. It must not block.
type Publisher interface {
	Publish(events []event.Event)
}

// Options configure Open. The zero value is usable.
type Options struct {
	// Now is the clock for timestamps; time.Now by default.
	Now func() time.Time
	// Publisher is told of every committed event; none by default.
	Publisher Publisher
	// MaxBatch bounds one group commit; 1024 by default.
	MaxBatch int
}

// Store is the database. Its methods are safe for concurrent use.
type Store struct {
	w, r     *sql.DB
	now      func() time.Time
	pub      Publisher
	maxBatch int

	appends chan *appendReq
	ws      writerStmts         // the writer's prepared statements
	nv      []driver.NamedValue // the writer's scratch for arguments
	quit    chan struct{}
	done    chan struct{}

	closeOnce sync.Once
	mu        sync.RWMutex // guards closed against appends racing Close
	closed    bool

	// instance names this opening of the database as a lease holder; lock
	// is held while it is open (see holders.go).
	instance string
	lock     *holderLock
}

// Open opens (creating if needed) the database at path and applies pending
// migrations.
func Open(path string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	// The database holds every run's log: its folder is 0700 and its files
	// 0600, whatever the umask, and also when an older Steward left them
	// looser. SQLite makes a new database 0644 and gives its -wal and -shm
	// files the database's mode: so the database is made first, 0600.
	if err := osext.MkdirPrivate(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := osext.CreatePrivate(path); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if err := osext.Private(path + suffix); err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
	}
	w, err := sql.Open("sqlite3", writerDSN(path))
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	w.SetMaxOpenConns(1) // one writer
	w.SetConnMaxIdleTime(0)
	r, err := sql.Open("sqlite3", readerDSN(path))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	r.SetMaxOpenConns(4)
	instance, lock, err := lockHolder(path)
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	s := &Store{w: w, r: r, now: opts.Now, pub: opts.Publisher, maxBatch: opts.MaxBatch,
		appends: make(chan *appendReq, 4096), quit: make(chan struct{}), done: make(chan struct{}),
		instance: instance, lock: lock}
	if s.now == nil {
		s.now = time.Now
	}
	if s.maxBatch <= 0 {
		s.maxBatch = 1024
	}
	if err := checkFTS5(context.Background(), w); err != nil {
		w.Close()
		r.Close()
		lock.release()
		return nil, err
	}
	if err := s.migrate(context.Background()); err != nil {
		w.Close()
		r.Close()
		lock.release()
		return nil, err
	}
	go s.writeLoop()
	return s, nil
}

// baseDSN holds the settings of every connection. WAL lets readers run
// beside the one writer; synchronous=NORMAL is durable across process crashes
// in WAL mode (only a power loss can drop the last commits) and is what makes
// a commit cost microseconds, not an fsync. busy_timeout covers a second
// process (the CLI beside a server) holding the write lock.
func baseDSN(path string) string {
	return "file:" + path + "?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000&_foreign_keys=on"
}

// writerDSN is the writer's: _txlock=immediate takes the write lock at BEGIN
// so a transaction never fails half-way with SQLITE_BUSY on upgrade.
func writerDSN(path string) string { return baseDSN(path) + "&_txlock=immediate" }

func readerDSN(path string) string { return baseDSN(path) + "&mode=ro" }

// Close stops the writer after the pending appends and closes the database.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.quit)
		<-s.done
		if conn, cerr := s.w.Conn(context.Background()); cerr == nil {
			_ = conn.Raw(func(any) error { s.ws.closeAll(); return nil }) // Raw fails only with what f returns
			_ = conn.Close()                                              // returns it to the pool, closed next
		}
		err = s.w.Close()
		if rerr := s.r.Close(); err == nil {
			err = rerr
		}
		// Last: the leases this Store still holds are dead from here on.
		s.lock.release()
	})
	return err
}

// Ping checks that the database answers, for readiness.
func (s *Store) Ping(ctx context.Context) error { return s.r.PingContext(ctx) }

func (s *Store) ms() int64 { return s.now().UnixMilli() }

// checkFTS5 refuses a SQLite built without FTS5, which the run list's text
// search needs (migration 0016): mattn/go-sqlite3 compiles it in only with
// the build tag sqlite_fts5. Checked at every open, not only when the
// migration runs: a database migrated by a build that had it would
// otherwise fail at the first run created (its trigger writes the index).
func checkFTS5(ctx context.Context, db *sql.DB) error {
	var on bool
	if err := db.QueryRowContext(ctx, `SELECT sqlite_compileoption_used('ENABLE_FTS5')`).Scan(&on); err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	if !on {
		return fmt.Errorf("open store: %w", errNoFTS5)
	}
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var current int
	if err := s.w.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		base := filepath.Base(name)
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migrate: bad migration name %s", base)
		}
		if v <= current {
			continue
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", base, err)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate %s: %w", base, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, applied_at) VALUES (?, ?)`, v, s.ms()); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate %s: %w", base, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate %s: %w", base, err)
		}
	}
	return nil
}
