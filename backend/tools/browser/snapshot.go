package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Limits of a snapshot.
const (
	DefaultSnapshotChars = 8000
	MaxSnapshotChars     = 100000
	// maxNameChars shortens names and texts: a paragraph's full text is
	// browser_extract's job.
	maxNameChars = 300
	// maxOptions is how many options of a list box are listed.
	maxOptions = 25
)

// refMap gives elements their refs: backend DOM node id to ref number and
// back, for the current document. Numbers only grow, so a ref never names
// two elements; a new document clears the map (backend ids of another
// renderer process could collide).
type refMap struct {
	loader cdp.LoaderID
	byNode map[cdp.BackendNodeID]int
	byRef  map[int]cdp.BackendNodeID
	next   int
}

func newRefMap() refMap {
	return refMap{byNode: map[cdp.BackendNodeID]int{}, byRef: map[int]cdp.BackendNodeID{}}
}

// forDocument starts a new generation of refs when loader differs from the
// document the refs were given in.
func (r *refMap) forDocument(loader cdp.LoaderID) {
	if loader == r.loader {
		return
	}
	r.loader = loader
	clear(r.byNode)
	clear(r.byRef)
}

func (r *refMap) ref(id cdp.BackendNodeID) string {
	n, ok := r.byNode[id]
	if !ok {
		r.next++
		n = r.next
		r.byNode[id] = n
		r.byRef[n] = id
	}
	return "e" + strconv.Itoa(n)
}

// lookup returns the node a ref ("e12", also "12" or "[ref=e12]") names in
// the document the refs were given in.
func (r *refMap) lookup(ref string) (cdp.BackendNodeID, bool) {
	ref = strings.TrimSpace(ref)
	ref = strings.TrimSuffix(strings.TrimPrefix(ref, "[ref="), "]")
	ref = strings.TrimPrefix(strings.TrimPrefix(ref, "ref="), "e")
	n, err := strconv.Atoi(ref)
	if err != nil {
		return 0, false
	}
	id, ok := r.byRef[n]
	return id, ok
}

// snapshot returns the page's accessibility tree as text (see render),
// headed by the page's title and URL and capped at maxChars. selector (CSS)
// narrows it to one element's subtree.
func (s *session) snapshot(ctx context.Context, selector string, maxChars int) (string, error) {
	if maxChars <= 0 {
		maxChars = DefaultSnapshotChars
	}
	var nodes []*accessibility.Node
	var loader cdp.LoaderID
	// A navigation that commits while the tree is read would tie its refs
	// to the wrong document: read again when the document changed.
	for try := 0; ; try++ {
		s.mu.Lock()
		loader = s.loader
		s.mu.Unlock()
		res, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
		if err != nil {
			return "", fmt.Errorf("read the accessibility tree: %w", err)
		}
		nodes = res.Nodes
		s.mu.Lock()
		same := loader == s.loader
		s.mu.Unlock()
		if same || try == 2 {
			break
		}
	}
	frames, err := frameTrees(ctx, nodes)
	if err != nil {
		return "", fmt.Errorf("read the frames: %w", err)
	}
	var root cdp.BackendNodeID
	if selector != "" {
		id, err := queryBackend(ctx, selector)
		if err != nil {
			return "", err
		}
		root = id
	}
	s.mu.Lock()
	if s.seen == nil || s.refs.loader != loader {
		s.seen = map[string]string{} // the refs of another document
	}
	s.refs.forDocument(loader)
	pageURL := s.url
	tree, title, err := render(nodes, frames, root, s.refs.ref, pageURL)
	if err == nil {
		noteSeen(s.seen, tree)
		s.title = title
	}
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Page: %q\nURL: %s\n", title, pageURL)
	if selector != "" {
		fmt.Fprintf(&b, "Only the element matching %q:\n", selector)
	}
	if tree == "" {
		b.WriteString("(the page has no visible content)\n")
	}
	b.WriteString(capText(tree, maxChars, "use selector to narrow it (for example \"main\" or \"form\")"))
	return b.String(), nil
}

// capText cuts s at a line end within max characters and says how much was
// cut and what to do.
func capText(s string, max int, hint string) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], '\n') + 1
	if cut == 0 {
		cut = max
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
	}
	return fmt.Sprintf("%s… %d more characters cut; %s\n", s[:cut], len(s)-cut, hint)
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// queryBackend returns the backend node id of the first element that
// matches selector.
func queryBackend(ctx context.Context, selector string) (cdp.BackendNodeID, error) {
	const group = "steward-query"
	defer func() {
		_, _ = chromedp.Call(ctx, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
	}()
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression:  "document.querySelector(" + strconv.Quote(selector) + ")",
		ObjectGroup: group,
	})
	switch {
	case err != nil:
		return 0, fmt.Errorf("query %q: %w", selector, err)
	case res.ExceptionDetails != nil:
		return 0, fail(CodeNotFound, "selector %q is not a valid CSS selector", selector)
	case res.Result == nil || res.Result.ObjectID == "":
		return 0, fail(CodeNotFound, "no element matches selector %q", selector)
	}
	d, err := chromedp.Call(ctx, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
	if err != nil {
		return 0, fmt.Errorf("describe %q: %w", selector, err)
	}
	return d.Node.BackendNodeID, nil
}

// render writes the accessibility tree as indented lines:
//
//   - heading "Sign up" [ref=e3] [level=1]
//   - textbox "Name" [ref=e4] value="Ada"
//   - paragraph [ref=e5]: Some bold text.
//
// Ignored nodes and unnamed generic containers are left out, their children
// taking their place, so layout divs cost nothing; a container whose
// content is only text is one line. Every element line gets a ref. An
// iframe's content (see frameTrees) is rendered under its line. root,
// when not zero, is the backend node whose subtree is rendered. It returns
// the page title (the root's name).
func render(nodes []*accessibility.Node, frames map[cdp.BackendNodeID]*frameTree, root cdp.BackendNodeID, ref func(cdp.BackendNodeID) string, pageURL string) (text, title string, err error) {
	r := &renderer{byID: make(map[accessibility.NodeID]*accessibility.Node, len(nodes)), ref: ref, frames: frames}
	r.base, _ = url.Parse(pageURL)
	var top *accessibility.Node
	for _, n := range nodes {
		r.byID[n.NodeID] = n
		if top == nil && n.ParentID == "" {
			top = n
		}
		if root != 0 && n.BackendDOMNodeID == root && r.start == nil {
			r.start = n
		}
	}
	if top == nil {
		return "", "", nil
	}
	title = axString(top.Name)
	if root != 0 {
		if r.start == nil {
			return "", title, fail(CodeNotFound, "the element matching the selector is not in the accessibility tree (it is hidden or not rendered)")
		}
		r.node(r.start, 0, true)
	} else {
		r.children(top, 0)
	}
	return r.b.String(), title, nil
}

type renderer struct {
	byID   map[accessibility.NodeID]*accessibility.Node
	frames map[cdp.BackendNodeID]*frameTree // by iframe element
	ref    func(cdp.BackendNodeID) string
	base   *url.URL
	start  *accessibility.Node
	b      strings.Builder
}

// noise roles are containers that say nothing by themselves.
var noise = map[string]bool{"generic": true, "none": true, "presentation": true, "LabelText": true, "": true}

// leaf roles show their name and value; their children (a text field's
// inner editor, an image's parts) repeat them.
var leaf = map[string]bool{"textbox": true, "searchbox": true, "spinbutton": true, "slider": true, "checkbox": true,
	"radio": true, "switch": true, "img": true, "image": true, "progressbar": true, "meter": true, "menuitemcheckbox": true, "menuitemradio": true}

// skipped roles are left out with their subtrees: list bullets and the
// pieces of text boxes repeat what their parents say.
var skipped = map[string]bool{"InlineTextBox": true, "LineBreak": true, "ListMarker": true}

func (r *renderer) node(n *accessibility.Node, depth int, force bool) {
	role := axString(n.Role)
	switch {
	case skipped[role]:
		return
	case role == "StaticText":
		if t := clean(axString(n.Name)); t != "" {
			r.line(depth, "- text: "+t)
		}
		return
	case n.Ignored || role == "RootWebArea" || role == "WebArea":
		r.children(n, depth)
		return
	}
	name := clean(axString(n.Name))
	text, inline := "", true
	if !leaf[role] {
		text, inline = r.inline(n)
	}
	if noise[role] && name == "" && !force {
		if !inline {
			r.children(n, depth)
			return
		}
		if text == "" {
			return
		}
	}
	var b strings.Builder
	b.WriteString("- ")
	b.WriteString(role)
	if name != "" {
		b.WriteString(" ")
		b.WriteString(strconv.Quote(name))
	}
	if n.BackendDOMNodeID != 0 {
		b.WriteString(" [ref=" + r.ref(n.BackendDOMNodeID) + "]")
	}
	r.attrs(&b, n, role)
	if ft := r.frames[n.BackendDOMNodeID]; ft != nil && role == "Iframe" {
		r.frame(b.String(), ft, depth)
		return
	}
	switch {
	case inline && (text == "" || text == name):
		r.line(depth, b.String())
	case inline:
		r.line(depth, b.String()+": "+text)
	case role == "combobox" || role == "listbox":
		r.line(depth, b.String())
		r.options(n, depth+1)
	default:
		r.line(depth, b.String())
		r.children(n, depth+1)
	}
}

// children renders n's children at depth, merging runs of text into one
// line. A run that only repeats the name of the element beside it (a
// label's text next to its field) is left out.
func (r *renderer) children(n *accessibility.Node, depth int) {
	var run []string
	prev := ""
	flush := func(next string) {
		if t := clean(strings.Join(run, "")); t != "" && t != prev && t != next {
			r.line(depth, "- text: "+t)
		}
		run = run[:0]
	}
	for _, id := range n.ChildIDs {
		c := r.byID[id]
		if c == nil {
			continue
		}
		if t, ok := r.textOf(c); ok {
			run = append(run, t)
			continue
		}
		name := clean(axString(c.Name))
		flush(name)
		r.node(c, depth, false)
		prev = name
	}
	flush("")
}

// textOf returns a node's text when it is a piece of a text run: static
// text, or an ignored or unnamed generic node holding only text (a span).
// A generic node with text of its own gets a line and a ref instead only
// when it stands alone; inside a run it is text.
func (r *renderer) textOf(n *accessibility.Node) (string, bool) {
	role := axString(n.Role)
	switch {
	case role == "StaticText":
		return axString(n.Name), true
	case skipped[role]:
		return "", true
	case n.Ignored:
		return r.inline(n)
	}
	return "", false
}

// inline returns the text of n's subtree when it holds nothing but text,
// through ignored and unnamed generic nodes.
func (r *renderer) inline(n *accessibility.Node) (string, bool) {
	var parts []string
	var walk func(n *accessibility.Node, top bool) bool
	walk = func(n *accessibility.Node, top bool) bool {
		role := axString(n.Role)
		if !top {
			switch {
			case role == "StaticText":
				parts = append(parts, axString(n.Name))
				return true
			case skipped[role]:
				return true
			case !n.Ignored && !(noise[role] && axString(n.Name) == ""):
				return false
			}
		}
		for _, id := range n.ChildIDs {
			if c := r.byID[id]; c != nil && !walk(c, false) {
				return false
			}
		}
		return true
	}
	if !walk(n, true) {
		return "", false
	}
	return clean(strings.Join(parts, "")), true
}

// options lists the options of a combobox or list box, capped.
func (r *renderer) options(n *accessibility.Node, depth int) {
	var opts []*accessibility.Node
	var walk func(n *accessibility.Node)
	walk = func(n *accessibility.Node) {
		for _, id := range n.ChildIDs {
			c := r.byID[id]
			if c == nil {
				continue
			}
			if axString(c.Role) == "option" {
				opts = append(opts, c)
				continue
			}
			walk(c)
		}
	}
	walk(n)
	if len(opts) == 0 {
		r.children(n, depth)
		return
	}
	for i, o := range opts {
		if i == maxOptions {
			r.line(depth, fmt.Sprintf("- … %d more options", len(opts)-maxOptions))
			break
		}
		r.node(o, depth, false)
	}
}

// attrs appends the states a model needs to act: value, checked, disabled…
func (r *renderer) attrs(b *strings.Builder, n *accessibility.Node, role string) {
	props := map[accessibility.PropertyName]string{}
	for _, p := range n.Properties {
		if p != nil && p.Value != nil {
			props[p.Name] = axString(p.Value)
		}
	}
	flag := func(name accessibility.PropertyName, label string) {
		if props[name] == "true" {
			b.WriteString(" [" + label + "]")
		}
	}
	switch props["checked"] {
	case "true":
		b.WriteString(" [checked]")
	case "mixed":
		b.WriteString(" [checked=mixed]")
	}
	switch props["pressed"] {
	case "true":
		b.WriteString(" [pressed]")
	case "mixed":
		b.WriteString(" [pressed=mixed]")
	}
	flag("selected", "selected")
	switch props["expanded"] {
	case "true":
		b.WriteString(" [expanded]")
	case "false":
		b.WriteString(" [collapsed]")
	}
	flag("disabled", "disabled")
	flag("required", "required")
	if role != "textbox" || props["readonly"] == "true" {
		flag("readonly", "readonly")
	}
	if v := props["invalid"]; v != "" && v != "false" {
		b.WriteString(" [invalid]")
	}
	flag("focused", "focused")
	if v := props["level"]; v != "" && role == "heading" {
		b.WriteString(" [level=" + v + "]")
	}
	if v := clean(axString(n.Value)); v != "" {
		b.WriteString(" value=" + strconv.Quote(v))
	}
	if role == "link" {
		if u := props["url"]; u != "" {
			b.WriteString(" url=" + r.short(u))
		}
	}
	if d := clean(axString(n.Description)); d != "" && len(d) <= 120 {
		b.WriteString(" desc=" + strconv.Quote(d))
	}
}

// short writes a link's URL relative to the page when it has the page's
// origin.
func (r *renderer) short(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || r.base == nil || u.Scheme != r.base.Scheme || u.Host != r.base.Host {
		return raw
	}
	s := u.EscapedPath()
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		s += "#" + u.EscapedFragment()
	}
	if s == "" {
		s = "/"
	}
	return s
}

func (r *renderer) line(depth int, s string) {
	for range depth {
		r.b.WriteString("  ")
	}
	r.b.WriteString(s)
	r.b.WriteByte('\n')
}

// axString returns an AX value as text.
func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var x any
	if err := json.Unmarshal(v.Value, &x); err != nil {
		return ""
	}
	switch x := x.(type) {
	case string:
		return x
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

// clean collapses white space and shortens s to maxNameChars.
func clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxNameChars {
		cut := maxNameChars
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
