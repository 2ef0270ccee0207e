package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"steward/backend/tool"
)

// maxSeen bounds the element lines kept per document: a page with more
// refs than this shows the rest by ref alone.
const maxSeen = 20000

// noteSeen records, from a rendered snapshot, what each ref's line says of
// its element: its role and name (`button "Submit"`), without its state.
func noteSeen(seen map[string]string, tree string) {
	for line := range strings.Lines(tree) {
		i := strings.Index(line, " [ref=")
		if i < 0 || len(seen) >= maxSeen {
			continue
		}
		rest := line[i+len(" [ref="):]
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			continue
		}
		what := strings.TrimPrefix(strings.TrimSpace(line[:i]), "- ")
		if len(what) > 200 {
			what = what[:200] + "…"
		}
		seen[rest[:j]] = what
	}
}

// previewed is a browser tool whose calls on a ref show the person what
// they act on (tool.Previewer): the element as the model's snapshot showed
// it, and the page.
type previewed struct {
	keyed
	m *Manager
}

var _ tool.Previewer = previewed{}

// Preview implements tool.Previewer: for browser_act, `click button
// "Submit" (e3) on https://shop.example/cart ("Your cart")`; for a
// screenshot of one element, the element. Nothing without a browser open.
func (p previewed) Preview(_ context.Context, env tool.Env, raw json.RawMessage) (tool.Preview, bool) {
	var a struct {
		Action string `json:"action"`
		Ref    string `json:"ref"`
		Value  string `json:"value"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return tool.Preview{}, false
	}
	s := p.m.lookup(env.RunID)
	if s == nil {
		return tool.Preview{}, false
	}
	s.mu.Lock()
	url, title := s.url, s.title
	ref := strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(a.Ref), "[ref="), "]"), "ref=")
	if ref != "" && !strings.HasPrefix(ref, "e") {
		ref = "e" + ref
	}
	what, known := s.seen[ref]
	s.mu.Unlock()
	verb := a.Action
	if p.Spec().Name == Screenshot {
		verb = "screenshot of"
	}
	var b strings.Builder
	b.WriteString(verb)
	switch {
	case ref != "" && known:
		fmt.Fprintf(&b, " %s (%s)", what, ref)
	case ref != "":
		fmt.Fprintf(&b, " %s, an element no snapshot of this page showed", ref)
	case p.Spec().Name == Screenshot:
		b.WriteString(" the page")
	}
	if v := strings.TrimSpace(a.Value); v != "" && p.Spec().Name == Act {
		if len(v) > 80 {
			v = v[:80] + "…"
		}
		fmt.Fprintf(&b, " with %q", v)
	}
	if url != "" {
		fmt.Fprintf(&b, " on %s", url)
		if title != "" {
			fmt.Fprintf(&b, " (%q)", title)
		}
	}
	return tool.Preview{Note: b.String()}, true
}

// checkedOpen is browser_open with its precheck (tool.Prechecker): a URL
// it would refuse (no scheme, not http or https, a host outside the
// agent's domains) is refused at once rather than put to a person first.
type checkedOpen struct{ keyed }

var _ tool.Prechecker = checkedOpen{}

// Precheck implements tool.Prechecker with open's own URL check.
func (c checkedOpen) Precheck(_ context.Context, env tool.Env, raw json.RawMessage) (tool.Result, bool) {
	var a openArgs
	if json.Unmarshal(raw, &a) != nil {
		return tool.Result{}, false // Validate refuses it
	}
	res, ok := checkURL(strings.TrimSpace(a.URL), env.Domains)
	return res, !ok
}
