package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// probe asks each local server for its models, at the same time, briefly:
// one that does not answer at once is not running.
func probe(ctx context.Context, servers []string) []LocalServer {
	out := make([]LocalServer, len(servers))
	var wg sync.WaitGroup
	for i, base := range servers {
		out[i] = LocalServer{BaseURL: strings.TrimSuffix(base, "/"), Models: []string{}}
		wg.Go(func() {
			models, err := listModels(ctx, &http.Client{Timeout: 400 * time.Millisecond}, base+"models", nil)
			if err == nil {
				out[i].Found, out[i].Models = true, models
			}
		})
	}
	wg.Wait()
	return out
}

// TestResult is the outcome of a provider's connection test.
type TestResult struct {
	OK        bool     `json:"ok"`
	Message   string   `json:"message"`
	Models    []string `json:"models,omitempty"`
	LatencyMS int64    `json:"latency_ms"`
}

// Test lists a provider's models with the settings in force: the cheapest
// request that proves the base URL and the key.
func (s *Settings) Test(ctx context.Context, name string) (TestResult, error) {
	p, err := lookup(name)
	if err != nil {
		return TestResult{}, err
	}
	s.mu.Lock()
	f, err := s.read()
	s.mu.Unlock()
	if err != nil {
		return TestResult{}, err
	}
	key, base, _, _, _, _ := s.effective(p, f)
	if base == "" {
		base = p.defaultBase
	}
	base = strings.TrimSuffix(base, "/")
	header := http.Header{}
	endpoint := base + "/models"
	switch p.name {
	case "openai":
		if key != "" {
			header.Set("Authorization", "Bearer "+key)
		}
	case "anthropic":
		endpoint = strings.TrimSuffix(base, "/v1") + "/v1/models"
		header.Set("x-api-key", key)
		header.Set("anthropic-version", "2023-06-01")
	}
	start := time.Now()
	models, err := listModels(ctx, &http.Client{Timeout: 5 * time.Second}, endpoint, header)
	res := TestResult{LatencyMS: time.Since(start).Milliseconds()}
	if err != nil {
		res.Message = err.Error()
		return res, nil
	}
	res.OK, res.Models = true, models
	res.Message = fmt.Sprintf("connected to %s: %d models", redact(base), len(models))
	return res, nil
}

// listModels GETs a models list in the OpenAI or Anthropic shape ({"data":
// [{"id": ...}]}) and returns the ids. Its errors say what went wrong in
// words a person acts on; they never hold the key.
func listModels(ctx context.Context, client *http.Client, endpoint string, header http.Header) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, fmt.Errorf("bad base URL: %v", err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			return nil, fmt.Errorf("no answer from %s within %s", redact(endpoint), client.Timeout)
		case strings.Contains(err.Error(), "connection refused"):
			return nil, fmt.Errorf("nothing listens at %s (connection refused): is the server running?", redact(endpoint))
		}
		return nil, fmt.Errorf("cannot reach %s: %v", redact(endpoint), unwrapURL(err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("the key was refused (%s)", resp.Status)
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("%s has no models endpoint (404): check the base URL (it usually ends in /v1)", redact(endpoint))
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s answered %s", redact(endpoint), resp.Status)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("%s did not answer with a models list: %v", redact(endpoint), err)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// redact drops any user:password from a URL before it is shown.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the server"
	}
	return u.Redacted()
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
