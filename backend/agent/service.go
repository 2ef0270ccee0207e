package agent

import (
	"context"
	"fmt"
	"time"
)

// Repo is the storage the service needs; the store implements it.
type Repo interface {
	CreateAgent(ctx context.Context, a Agent) error
	UpdateAgent(ctx context.Context, a Agent) error
	DeleteAgent(ctx context.Context, id string) error
	GetAgent(ctx context.Context, key string) (Agent, error)
	ListAgents(ctx context.Context) ([]Agent, error)
}

// Service creates, changes and lists agents, validating every definition.
type Service struct {
	repo       Repo
	toolExists func(string) bool
	newID      func(prefix string) string
	now        func() time.Time
}

// NewService returns a Service. toolExists reports registered tool names.
func NewService(repo Repo, toolExists func(string) bool, newID func(prefix string) string, now func() time.Time) *Service {
	return &Service{repo: repo, toolExists: toolExists, newID: newID, now: now}
}

// Create validates a and saves it with a new id.
func (s *Service) Create(ctx context.Context, a Agent) (Agent, error) {
	a.Normalize()
	if err := a.Validate(s.toolExists); err != nil {
		return Agent{}, err
	}
	a.ID = s.newID("ag")
	a.CreatedAt = s.now().UnixMilli()
	a.UpdatedAt = a.CreatedAt
	if err := s.repo.CreateAgent(ctx, a); err != nil {
		return Agent{}, err
	}
	return a, nil
}

// Update replaces the agent whose id or name is key with a.
func (s *Service) Update(ctx context.Context, key string, a Agent) (Agent, error) {
	old, err := s.repo.GetAgent(ctx, key)
	if err != nil {
		return Agent{}, err
	}
	a.Normalize()
	if err := a.Validate(s.toolExists); err != nil {
		return Agent{}, err
	}
	a.ID, a.CreatedAt, a.UpdatedAt = old.ID, old.CreatedAt, s.now().UnixMilli()
	if err := s.repo.UpdateAgent(ctx, a); err != nil {
		return Agent{}, err
	}
	return a, nil
}

// Delete removes the agent whose id or name is key.
func (s *Service) Delete(ctx context.Context, key string) error {
	a, err := s.repo.GetAgent(ctx, key)
	if err != nil {
		return err
	}
	return s.repo.DeleteAgent(ctx, a.ID)
}

// Get returns the agent whose id or name is key.
func (s *Service) Get(ctx context.Context, key string) (Agent, error) {
	return s.repo.GetAgent(ctx, key)
}

// List returns every agent by name.
func (s *Service) List(ctx context.Context) ([]Agent, error) { return s.repo.ListAgents(ctx) }

// EnsureDefault creates the default agent when no agent exists yet, so a
// fresh install has something to run.
func (s *Service) EnsureDefault(ctx context.Context) error {
	all, err := s.repo.ListAgents(ctx)
	if err != nil {
		return err
	}
	if len(all) > 0 {
		return nil
	}
	if _, err := s.Create(ctx, Default()); err != nil {
		return fmt.Errorf("create default agent: %w", err)
	}
	return nil
}
