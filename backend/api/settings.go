package api

import (
	"context"
	"net/http"

	"steward/backend/config"
)

// Settings reads and changes the providers and the price table.
type Settings interface {
	View(ctx context.Context) (config.SettingsView, error)
	SetProvider(ctx context.Context, name string, in config.ProviderInput) error
	SetPrices(ctx context.Context, prices map[string]config.Price) error
	Test(ctx context.Context, name string) (config.TestResult, error)
}

var _ Settings = (*config.Settings)(nil)

// PricesInput replaces the configured prices.
type PricesInput = config.PricesInput

func (s *Server) settings(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Settings == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "settings are not available in this server")
	}
	v, err := s.cfg.Settings.View(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

func (s *Server) setProvider(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Settings == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "settings are not available in this server")
	}
	var in config.ProviderInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if err := s.cfg.Settings.SetProvider(r.Context(), r.PathValue("name"), in); err != nil {
		return err
	}
	return s.settings(w, r)
}

func (s *Server) testProvider(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Settings == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "settings are not available in this server")
	}
	res, err := s.cfg.Settings.Test(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

func (s *Server) setPrices(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Settings == nil {
		return errorf(http.StatusNotImplemented, CodeUnsupported, "settings are not available in this server")
	}
	var in PricesInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	prices, err := in.Table()
	if err != nil {
		return err
	}
	if err := s.cfg.Settings.SetPrices(r.Context(), prices); err != nil {
		return err
	}
	return s.settings(w, r)
}
