package exchange_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the controls talk to SQLite directly

	"steward/backend/exchange"
)

// BenchmarkExportImport100k exports a run of 100,000 events (10,000 turns
// of internal/e2e's shape, 100 file changes) from a real store and imports
// it back (checked, blobs kept, one transaction): issue 18's target is
// under 1 s each. Each iteration also times two controls on the same data,
// the floor of what SQLite and compression cost: reading the run's 100,000
// rows and writing them gzip'd to io.Discard (control-export), and
// inserting them into an events table of the same shape in one
// transaction (control-import).
func BenchmarkExportImport100k(b *testing.B) {
	e := newBigEnv(b, 10_000)
	ctx := context.Background()
	rdb, err := sql.Open("sqlite3", "file:"+e.db+"?mode=ro&_journal_mode=WAL")
	if err != nil {
		b.Fatal(err)
	}
	defer rdb.Close()
	wdb, err := sql.Open("sqlite3", "file:"+filepath.Join(b.TempDir(), "control.db")+"?_journal_mode=WAL&_synchronous=NORMAL")
	if err != nil {
		b.Fatal(err)
	}
	defer wdb.Close()
	if _, err := wdb.Exec(`CREATE TABLE events (id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, seq INTEGER NOT NULL,
		ts INTEGER NOT NULL, type TEXT NOT NULL, node_id TEXT NOT NULL DEFAULT '', data BLOB NOT NULL);
		CREATE UNIQUE INDEX events_run_seq ON events(run_id, seq)`); err != nil {
		b.Fatal(err)
	}
	var exportNS, importNS, ctlExportNS, ctlImportNS int64
	var size int
	for i := 0; b.Loop(); i++ {
		var buf bytes.Buffer
		t0 := nowNS()
		if _, err := e.ex.Export(ctx, e.run, exchange.FormatSteward, &buf); err != nil {
			b.Fatal(err)
		}
		t1 := nowNS()
		r, err := e.ex.Import(ctx, bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			b.Fatal(err)
		}
		t2 := nowNS()
		if r.LastSeq != int64(e.events) {
			b.Fatalf("imported %d events of %d", r.LastSeq, e.events)
		}
		rows := controlExport(b, rdb, e.run)
		t3 := nowNS()
		controlImport(b, wdb, rows, int64(i))
		t4 := nowNS()
		exportNS += t1 - t0
		importNS += t2 - t1
		ctlExportNS += t3 - t2
		ctlImportNS += t4 - t3
		size = buf.Len()
	}
	ms := func(ns int64) float64 { return float64(ns) / 1e6 / float64(b.N) }
	b.ReportMetric(ms(exportNS), "ms/export")
	b.ReportMetric(ms(importNS), "ms/import")
	b.ReportMetric(ms(ctlExportNS), "ms/control-export")
	b.ReportMetric(ms(ctlImportNS), "ms/control-import")
	b.ReportMetric(float64(size), "bundle-bytes")
}

type row struct {
	seq, ts   int64
	typ, node string
	data      []byte
}

// controlExport reads the run's rows and writes them gzip'd to io.Discard,
// returning them for controlImport.
func controlExport(b *testing.B, db *sql.DB, run string) []row {
	rs, err := db.Query(`SELECT seq, ts, type, node_id, data FROM events WHERE run_id = ? ORDER BY seq`, run)
	if err != nil {
		b.Fatal(err)
	}
	defer rs.Close()
	zw := gzip.NewWriter(io.Discard)
	var out []row
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.seq, &r.ts, &r.typ, &r.node, &r.data); err != nil {
			b.Fatal(err)
		}
		if _, err := zw.Write(r.data); err != nil {
			b.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	return out
}

// controlImport inserts rows as the events of a new run, in one
// transaction with one prepared statement.
func controlImport(b *testing.B, db *sql.DB, rows []row, n int64) {
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	st, err := tx.Prepare(`INSERT INTO events(run_id, seq, ts, type, node_id, data) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	run := fmt.Sprintf("run_ctl_%d", n)
	for _, r := range rows {
		if _, err := st.Exec(run, r.seq, r.ts, r.typ, r.node, string(r.data)); err != nil {
			b.Fatal(err)
		}
	}
	st.Close()
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
