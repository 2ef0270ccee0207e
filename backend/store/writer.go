package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
)

// wtx is the transaction of one group commit, run on the writer's own
// SQLite connection through the database/sql/driver interfaces rather than
// database/sql itself. A step's statements are small, and database/sql's
// work around each (a lock per call, every argument boxed and converted
// again, a Stmt per transaction) cost more than SQLite's own: the engine's
// profile showed it in every write of the append path. The statements are
// prepared once per connection and kept (writerStmts); arguments are
// converted as database/sql converts them (driver.DefaultParameterConverter),
// so what is stored does not change.
type wtx struct {
	ctx   context.Context
	conn  driver.Conn
	stmts *writerStmts
	nv    []driver.NamedValue // scratch for the arguments of one statement
}

// writerStmts are the writer's prepared statements, valid on the driver
// connection they were prepared on. Only the writer goroutine touches them
// (and Close, once the writer stopped).
type writerStmts struct {
	conn  driver.Conn
	stmts map[string]driver.Stmt
}

// inWriter runs f in a transaction on the writer connection: BEGIN
// IMMEDIATE (as _txlock=immediate does for database/sql's transactions),
// then COMMIT when f returns nil, else ROLLBACK. The connection is taken
// from database/sql for the time of f, so the store's other writes (agents,
// leases) wait their turn as they always did.
func (s *Store) inWriter(ctx context.Context, f func(tx *wtx) error) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("writer connection: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("writer connection: %T is no driver.Conn", dc)
		}
		if s.ws.conn != c { // a new connection (the old one broke): prepare again
			s.ws.closeAll()
			s.ws.conn, s.ws.stmts = c, map[string]driver.Stmt{}
		}
		tx := &wtx{ctx: ctx, conn: c, stmts: &s.ws, nv: s.nv[:0]}
		if err := tx.raw("BEGIN IMMEDIATE"); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		if err := f(tx); err != nil {
			if rerr := tx.raw("ROLLBACK"); rerr != nil {
				return errors.Join(err, fmt.Errorf("rollback: %w", rerr))
			}
			return err
		}
		s.nv = tx.nv[:0] // keep the grown scratch for the next group
		if err := tx.raw("COMMIT"); err != nil {
			// A failed COMMIT may leave the transaction open (SQLITE_BUSY);
			// end it so that the next group begins afresh.
			_ = tx.raw("ROLLBACK")
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	})
}

// closeAll closes the prepared statements.
func (w *writerStmts) closeAll() {
	for _, st := range w.stmts {
		_ = st.Close() // finalizing a statement of a closing connection has nothing to report
	}
	w.stmts = nil
}

// raw executes a statement without arguments: BEGIN, COMMIT, SAVEPOINT and
// their kin, prepared once like the others (parsing them anew cost more
// than running them, for every group).
func (t *wtx) raw(q string) error {
	_, err := t.execNamed(q, nil)
	return err
}

func (t *wtx) stmt(q string) (driver.Stmt, error) {
	if st, ok := t.stmts.stmts[q]; ok {
		return st, nil
	}
	pc, ok := t.conn.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("%T cannot prepare with a context", t.conn)
	}
	st, err := pc.PrepareContext(t.ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", q, err)
	}
	t.stmts.stmts[q] = st
	return st, nil
}

// bind converts args as database/sql does for a driver that checks nothing
// itself, the common types without a detour.
func (t *wtx) bind(args []any) ([]driver.NamedValue, error) {
	nv := t.nv[:0]
	for i, a := range args {
		var v driver.Value
		switch x := a.(type) {
		case nil, string, int64, float64, bool, []byte:
			v = x
		case int:
			v = int64(x)
		default:
			var err error
			if v, err = driver.DefaultParameterConverter.ConvertValue(a); err != nil {
				return nil, fmt.Errorf("argument %d: %w", i+1, err)
			}
		}
		nv = append(nv, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	t.nv = nv
	return nv, nil
}

// ExecContext executes q, prepared once per connection, with args. It has
// the shape of database/sql's so that the projection reads the same.
func (t *wtx) ExecContext(_ context.Context, q string, args ...any) (sql.Result, error) {
	nv, err := t.bind(args)
	if err != nil {
		return nil, err
	}
	return t.execNamed(q, nv)
}

func (t *wtx) execNamed(q string, nv []driver.NamedValue) (sql.Result, error) {
	st, err := t.stmt(q)
	if err != nil {
		return nil, err
	}
	ex, ok := st.(driver.StmtExecContext)
	if !ok {
		return nil, fmt.Errorf("%T cannot execute with a context", st)
	}
	return ex.ExecContext(t.ctx, nv)
}

// queryRow runs q with args and converts the first row's columns into
// dest (*int64 or *string); found is false when there is no row.
func (t *wtx) queryRow(q string, args []any, dest ...any) (found bool, err error) {
	nv, err := t.bind(args)
	if err != nil {
		return false, err
	}
	st, err := t.stmt(q)
	if err != nil {
		return false, err
	}
	qc, ok := st.(driver.StmtQueryContext)
	if !ok {
		return false, fmt.Errorf("%T cannot query with a context", st)
	}
	rows, err := qc.QueryContext(t.ctx, nv)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	vals := make([]driver.Value, len(rows.Columns()))
	if err := rows.Next(vals); errors.Is(err, io.EOF) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	for i, d := range dest {
		if err := scanValue(vals[i], d); err != nil {
			return false, fmt.Errorf("%s: column %d: %w", q, i+1, err)
		}
	}
	return true, nil
}

func scanValue(v driver.Value, dest any) error {
	switch d := dest.(type) {
	case *int64:
		n, ok := v.(int64)
		if !ok {
			return fmt.Errorf("%T is not an integer", v)
		}
		*d = n
	case *string:
		switch x := v.(type) {
		case string:
			*d = x
		case []byte:
			*d = string(x)
		default:
			return fmt.Errorf("%T is not text", v)
		}
	default:
		return fmt.Errorf("cannot scan into %T", dest)
	}
	return nil
}
