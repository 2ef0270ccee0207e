package exchange_test

import (
	"bytes"
	"context"
	"testing"

	"steward/backend/exchange"
)

// BenchmarkExportHTML100k exports the run of BenchmarkExportImport100k
// (100,000 events) as the self-contained web page: issue 18's target is
// under 1 s, as for the .steward export. The page's size is reported too.
func BenchmarkExportHTML100k(b *testing.B) {
	e := newBigEnv(b, 10_000)
	ctx := context.Background()
	var size int
	var ns int64
	for b.Loop() {
		var buf bytes.Buffer
		t0 := nowNS()
		if _, err := e.ex.Export(ctx, e.run, exchange.FormatHTML, &buf); err != nil {
			b.Fatal(err)
		}
		ns += nowNS() - t0
		size = buf.Len()
	}
	b.ReportMetric(float64(ns)/1e6/float64(b.N), "ms/export")
	b.ReportMetric(float64(size), "page-bytes")
}
