package exchange

import (
	"context"
	"path/filepath"

	"steward/backend/event"
	"steward/backend/recording"
)

// source adapts the store, the blobs and the artifacts folder to what an
// export reads.
type source struct{ s *Service }

func (s *Service) source() recording.Source { return source{s} }

func (src source) Run(ctx context.Context, id string) (recording.RunSummary, error) {
	r, err := src.s.cfg.Store.GetRun(ctx, id)
	if err != nil {
		return recording.RunSummary{}, err
	}
	return recording.RunSummary{ID: r.ID, Status: r.Status, AgentName: r.AgentName, Provider: r.Provider, Model: r.Model,
		Instructions: r.Instructions, Workspace: r.Workspace, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Steps: r.Steps,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CostUSD: r.CostUSD, Events: int(r.LastSeq), ForkedFrom: r.ForkedFrom}, nil
}

func (src source) Events(ctx context.Context, runID string) ([]event.Event, error) {
	return src.s.events(ctx, runID)
}

func (src source) Blob(sum string) ([]byte, error) { return src.s.cfg.Blobs.Get(sum) }

func (src source) ArtifactsDir(runID string) string {
	if src.s.cfg.Artifacts == "" {
		return ""
	}
	return filepath.Join(src.s.cfg.Artifacts, runID)
}
