package recording_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"testing"
	"time"

	"steward/backend/event"
	"steward/backend/recording"
	"steward/backend/redact"
)

// The figures of issue 8: a run of 10,000 events with 100 file changes
// (blobs of a few KB), exported with a redactor as the API does, and read
// back. Targets: under 1 s each; the bundle no larger than the gzip of
// events.jsonl plus the raw blobs (ref-bytes).

func bench10k(b *testing.B) *fakeSource {
	src := script("r1", 10_000, 100)
	changes := 0
	for _, e := range src.events {
		if e.Type == event.FileChanged {
			changes++
		}
	}
	if len(src.events) != 10_000 || changes != 100 || len(src.blobs) != 100 {
		b.Fatalf("%d events, %d changes, %d blobs: not the run of the figures", len(src.events), changes, len(src.blobs))
	}
	return src
}

func exportOptions() recording.ExportOptions {
	return recording.ExportOptions{
		Steward:  "bench",
		Redactor: redact.New("configured-provider-key-0123456789"),
		Now:      func() time.Time { return created },
	}
}

// referenceSize is what the bundle is measured against: events.jsonl
// gzipped at the default level, plus the blobs as they are.
func referenceSize(tb testing.TB, bundle []byte) int {
	var ref int
	for _, e := range unpack(tb, bundle) {
		switch {
		case e.name == "events.jsonl":
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(e.body)
			zw.Close()
			ref += z.Len()
		case len(e.name) > 6 && e.name[:6] == "blobs/":
			ref += len(e.body)
		}
	}
	return ref
}

func BenchmarkExport10k(b *testing.B) {
	src := bench10k(b)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if _, err := recording.Export(context.Background(), src, "r1", &buf, exportOptions()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/export")
	b.ReportMetric(float64(buf.Len()), "bundle-bytes")
	b.ReportMetric(float64(referenceSize(b, buf.Bytes())), "ref-bytes")
}

func BenchmarkRead10k(b *testing.B) {
	src := bench10k(b)
	var buf bytes.Buffer
	if _, err := recording.Export(context.Background(), src, "r1", &buf, exportOptions()); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := recording.Read(bytes.NewReader(data), int64(len(data)), recording.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/read")
	b.ReportMetric(float64(len(data)), "bundle-bytes")
	b.ReportMetric(float64(referenceSize(b, data)), "ref-bytes")
}

// TestSizeTarget holds the size target without -bench.
func TestSizeTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and exports a run of 10,000 events; make test runs it")
	}
	t.Parallel()
	src := script("r1", 10_000, 100)
	var buf bytes.Buffer
	if _, err := recording.Export(context.Background(), src, "r1", &buf, exportOptions()); err != nil {
		t.Fatal(err)
	}
	if ref := referenceSize(t, buf.Bytes()); buf.Len() > ref {
		t.Errorf("bundle %d bytes, more than gzip(events.jsonl) + blobs = %d", buf.Len(), ref)
	}
}
