package otlp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// sendTimeout bounds one export. A person is waiting (a command, a button),
// and a collector that has not answered in this long is not going to.
const sendTimeout = 30 * time.Second

// Bounds on what is read of the collector's answer: enough for an OTLP
// partial-success message, and a head short enough to quote in an error.
const (
	maxAnswer = 64 << 10
	bodyHead  = 512
)

// Send POSTs an OTLP/JSON export request (as Traces returns it) to an
// OTLP/HTTP endpoint. When the endpoint URL has no path, /v1/traces is
// appended (http://localhost:4318 → http://localhost:4318/v1/traces); a URL
// with a path is used as it is, for collectors mounted elsewhere. headers are
// added to the request (an Authorization for Langfuse, say); Content-Type is
// always application/json. The request is bounded by a 30 s timeout as well
// as ctx.
//
// The error says what failed without the endpoint's credentials: a URL that
// is not http(s), a transport failure, a non-2xx answer (with its status and
// the head of its body), or a 2xx answer whose partialSuccess says spans
// were rejected.
func Send(ctx context.Context, endpoint string, body []byte, headers map[string]string) error {
	u, err := tracesURL(endpoint)
	if err != nil {
		return err
	}
	where := u.Redacted()
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("send traces to %s: %w", where, err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json") // the body is JSON whatever the headers say
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		// http.Client's errors quote the URL with its password removed.
		return fmt.Errorf("send traces: %w", err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("send traces to %s: the collector answered %s: %s", where, resp.Status, head(answer))
	}
	if err != nil {
		return fmt.Errorf("send traces to %s: read the answer: %w", where, err)
	}
	// A 2xx may still carry a partial success: some spans were refused.
	var ps struct {
		PartialSuccess *struct {
			RejectedSpans int64String `json:"rejectedSpans"`
			ErrorMessage  string      `json:"errorMessage"`
		} `json:"partialSuccess"`
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && json.Unmarshal(answer, &ps) == nil &&
		ps.PartialSuccess != nil && ps.PartialSuccess.RejectedSpans > 0 {
		return fmt.Errorf("send traces to %s: the collector rejected %d spans: %s", where, ps.PartialSuccess.RejectedSpans,
			head([]byte(ps.PartialSuccess.ErrorMessage)))
	}
	return nil
}

// tracesURL checks the endpoint and appends the OTLP/HTTP traces path when
// it has none.
func tracesURL(endpoint string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The endpoint is not quoted back: it may hold credentials.
		return nil, errors.New("send traces: the OTLP endpoint must be an http:// or https:// URL with a host, like http://localhost:4318")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path, u.RawPath = "/v1/traces", ""
	}
	return u, nil
}

// head is the start of a collector's answer, on one line, for an error.
func head(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if s == "" {
		return "(empty body)"
	}
	return firstLine(s, bodyHead)
}
