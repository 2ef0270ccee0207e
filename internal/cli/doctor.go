package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"steward/backend/config"
	"steward/backend/doctor"
	browsertools "steward/backend/tools/browser"
	"steward/backend/tools/browser/video"
)

// doctorCmd checks this machine (see package doctor) and exits 1 when a
// check failed.
func (p *Program) doctorCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprint(stderr, "Usage: steward doctor\n\nCheck this machine: the command sandbox, Chromium, ffmpeg, the model providers and the data directory.\n"+
			"Exits 1 when a check failed.\n")
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "steward:", err)
		return 1
	}
	models := config.NewModels(cfg)
	checks := doctor.Run(context.Background(), doctor.Params{
		Home: cfg.Home, Sandbox: p.Sandbox(cfg, getenv), Version: doctor.ProgramVersion,
		Chromium:  func() (string, error) { return browsertools.FindChromium(cfg.Browser.Chromium) },
		FFmpeg:    video.FFmpeg,
		Providers: config.NewSettings(cfg, getenv, models, config.NewPrices(cfg.Prices)),
	})
	failed, err := doctor.Write(stdout, checks)
	if err != nil {
		fmt.Fprintln(stderr, "steward:", err)
		return 1
	}
	if failed {
		return 1
	}
	return 0
}
