package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"steward/backend/exchange"
	"steward/backend/recording/otlp"
)

// exportCmd is `steward export RUN -o FILE`: the run's recording, web page,
// traces or video, redacted, written atomically to FILE.
func (p *Program) exportCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("export", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "", "the file to write (default: RUN and the format's extension, in this folder)")
	format := fl.String("format", exchange.FormatSteward, "steward (the recording), html (a web page that replays it offline), otlp (OpenTelemetry traces) or video")
	endpoint := fl.String("otlp-endpoint", "", "with --format otlp: also send the traces to this OTLP/HTTP endpoint (e.g. http://127.0.0.1:4318)")
	fl.Usage = func() {
		fmt.Fprint(stderr, "Usage: steward export [--format steward|html|otlp|video] [-o FILE] RUN_ID\n\n"+
			"Export a run. Provider keys, the server's token and strings shaped like keys are removed first;\n"+
			"the recording's manifest says what was removed, never the values. Pictures and videos are copied as they are.\n\n")
		fl.PrintDefaults()
	}
	rest, code, ok := parseMixed(fl, args)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		fl.Usage()
		return 2
	}
	if *endpoint != "" && *format != exchange.FormatOTLP {
		fmt.Fprintln(stderr, "steward export: --otlp-endpoint goes with --format otlp")
		return 2
	}
	runID := rest[0]
	s, err := p.Build(getenv, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "steward:", err)
		return 1
	}
	defer s.Close()
	ctx := context.Background()
	path := *out
	if path == "" {
		path = "." // the export's own file name, in this folder
	}
	tmp, err := os.CreateTemp(dirOf(path), ".steward-export-*")
	if err != nil {
		fmt.Fprintln(stderr, "steward export:", err)
		return 1
	}
	defer os.Remove(tmp.Name())
	ex, err := s.Exchange.Export(ctx, runID, *format, tmp)
	if err == nil {
		err = tmp.Close()
	} else {
		tmp.Close()
	}
	if err != nil {
		fmt.Fprintln(stderr, "steward export:", err)
		return 1
	}
	if fi, err := os.Stat(path); path == "." || (err == nil && fi.IsDir()) {
		path = filepath.Join(path, ex.Filename)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		fmt.Fprintln(stderr, "steward export:", err)
		return 1
	}
	fi, _ := os.Stat(path)
	fmt.Fprintf(stdout, "wrote %s (%s, %d bytes)", path, *format, fi.Size())
	if n := len(ex.Manifest.Redactions); n > 0 {
		fmt.Fprintf(stdout, "; redacted: %s", redactionSummary(ex))
	}
	fmt.Fprintln(stdout)
	if *endpoint != "" {
		body, err := os.ReadFile(path)
		if err == nil {
			err = otlp.Send(ctx, *endpoint, body, nil)
		}
		if err != nil {
			fmt.Fprintln(stderr, "steward export: send the traces:", err)
			return 1
		}
		fmt.Fprintln(stdout, "sent the traces to", *endpoint)
	}
	return 0
}

// importCmd is `steward import FILE`.
func (p *Program) importCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("import", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprint(stderr, "Usage: steward import FILE.steward\n\n"+
			"Import a recording as a new, read-only run. The whole file is checked first (checksums, sizes, paths,\n"+
			"the log); a damaged or tampered file is refused with the reason and nothing is written.\n")
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() != 1 {
		fl.Usage()
		return 2
	}
	f, err := os.Open(fl.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "steward import:", err)
		return 1
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		fmt.Fprintln(stderr, "steward import:", err)
		return 1
	}
	s, err := p.Build(getenv, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "steward:", err)
		return 1
	}
	defer s.Close()
	r, err := s.Exchange.Import(context.Background(), f, fi.Size())
	if err != nil {
		fmt.Fprintf(stderr, "steward import: %s: %v\n", fl.Arg(0), err)
		return 1
	}
	fmt.Fprintf(stdout, "imported %s as run %s (%s, %d events, recorded as %s)\n", fl.Arg(0), r.ID, r.Status, r.LastSeq, r.ImportedFrom)
	return 0
}

func dirOf(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return path
	}
	return filepath.Dir(path)
}

func redactionSummary(ex exchange.Export) string {
	by := map[string]int{}
	var kinds []string
	for _, f := range ex.Manifest.Redactions {
		if by[f.Kind] == 0 {
			kinds = append(kinds, f.Kind)
		}
		by[f.Kind] += f.Count
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", by[k], k)
	}
	return strings.Join(parts, ", ")
}

// parseMixed parses fl's flags wherever they stand among the positional
// arguments, as people type them (steward export RUN -o FILE), and returns
// the positional ones. When it returns !ok the command exits with code:
// 0 after -h, 2 after a bad flag (fl has said which).
func parseMixed(fl *flag.FlagSet, args []string) (rest []string, code int, ok bool) {
	for len(args) > 0 {
		if err := fl.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0, false
			}
			return nil, 2, false
		}
		if fl.NArg() == 0 {
			break
		}
		rest = append(rest, fl.Arg(0))
		args = fl.Args()[1:]
	}
	return rest, 0, true
}
