package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"steward/backend/tool"
	"steward/backend/workspace"
)

// Actions of browser_act.
const (
	ActClick   = "click"
	ActFill    = "fill"
	ActType    = "type"
	ActPress   = "press"
	ActSelect  = "select"
	ActCheck   = "check"
	ActUncheck = "uncheck"
	ActHover   = "hover"
	ActScroll  = "scroll"
	ActWait    = "wait"
)

// Bounds of waits inside an action.
const (
	defaultWait = time.Second
	maxWait     = 30 * time.Second
)

// objectGroup holds the page objects an action resolves; it is released
// after each action so that the page does not keep them alive.
const objectGroup = "steward-act"

// element is a ref resolved to its DOM node.
type element struct {
	ref     string
	backend cdp.BackendNodeID
	obj     runtime.RemoteObjectID
}

// element resolves ref in the current document. An unknown ref, one from an
// earlier document or one whose node left the page is a CodeStaleRef failure
// telling the model to take a new snapshot.
func (s *session) element(ctx context.Context, ref string) (*element, error) {
	s.mu.Lock()
	id, ok := s.refs.lookup(ref)
	current := s.refs.loader == s.loader
	s.mu.Unlock()
	switch {
	case !ok:
		return nil, fail(CodeStaleRef, "ref %q is not in the latest snapshot: take a new snapshot (browser_snapshot) and use a ref from it", ref)
	case !current:
		return nil, fail(CodeStaleRef, "ref %s belongs to a page that is gone (a new document loaded since): take a new snapshot (browser_snapshot) and use a ref from it", ref)
	}
	res, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id, ObjectGroup: objectGroup})
	var perr *cdproto.Error
	if errors.As(err, &perr) || (err == nil && (res.Object == nil || res.Object.ObjectID == "")) {
		return nil, fail(CodeStaleRef, "element %s is no longer on the page: take a new snapshot (browser_snapshot)", ref)
	} else if err != nil {
		return nil, err
	}
	e := &element{ref: ref, backend: id, obj: res.Object.ObjectID}
	connected, err := callOn[bool](ctx, e, `function() { return this.isConnected }`)
	if err != nil {
		return nil, err
	}
	if !connected {
		return nil, fail(CodeStaleRef, "element %s was removed from the page: take a new snapshot (browser_snapshot)", ref)
	}
	return e, nil
}

// callOn calls the JavaScript function fn with this = e's node.
func callOn[T any](ctx context.Context, e *element, fn string, args ...any) (T, error) {
	return chromedp.Run(ctx, chromedp.CallFunctionOn[T](fn, func(p *runtime.CallFunctionOnParams) { p.ObjectID = e.obj }, args...))
}

// act carries out one action and returns what it did, in a sentence.
func (s *session) act(ctx context.Context, env tool.Env, a actArgs) (string, error) {
	defer func() {
		_, _ = chromedp.Call(ctx, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: objectGroup})
	}()
	needsRef := map[string]bool{ActClick: true, ActFill: true, ActSelect: true, ActCheck: true, ActUncheck: true, ActHover: true}
	var e *element
	switch {
	case a.Ref != "":
		var err error
		if e, err = s.element(ctx, a.Ref); err != nil {
			return "", err
		}
	case needsRef[a.Action]:
		return "", fail(tool.CodeInvalidArguments, "%s needs the ref of an element from the latest snapshot", a.Action)
	}
	switch a.Action {
	case ActClick:
		return s.click(ctx, e)
	case ActHover:
		x, y, err := s.point(ctx, e)
		if err != nil {
			return "", err
		}
		return "Hovered over " + e.ref + ".", mouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y)
	case ActFill:
		return s.fill(ctx, env, e, a.Value)
	case ActType:
		if e != nil {
			if _, err := chromedp.Call(ctx, dom.Focus, dom.FocusParams{BackendNodeID: e.backend}); err != nil {
				return "", notActionable(e, err)
			}
		}
		if err := chromedp.Do(ctx, chromedp.KeyEvent(a.Value)); err != nil {
			return "", err
		}
		return fmt.Sprintf("Typed %d characters%s.", len([]rune(a.Value)), into(e)), nil
	case ActPress:
		if e != nil {
			if _, err := chromedp.Call(ctx, dom.Focus, dom.FocusParams{BackendNodeID: e.backend}); err != nil {
				return "", notActionable(e, err)
			}
		}
		if err := press(ctx, a.Value); err != nil {
			return "", err
		}
		return fmt.Sprintf("Pressed %s%s.", a.Value, into(e)), nil
	case ActSelect:
		return selectOptions(ctx, e, a.Value)
	case ActCheck, ActUncheck:
		return s.check(ctx, e, a.Action == ActCheck)
	case ActScroll:
		return scroll(ctx, e, a.Value)
	case ActWait:
		return wait(ctx, a.Value)
	}
	return "", fail(tool.CodeInvalidArguments, "unknown action %q: use one of click, fill, type, press, select, check, uncheck, hover, scroll, wait", a.Action)
}

func into(e *element) string {
	if e == nil {
		return ""
	}
	return " into " + e.ref
}

// notActionable turns Chromium's refusal to scroll to, focus or measure an
// element into a failure the model can act on.
func notActionable(e *element, err error) error {
	var perr *cdproto.Error
	if errors.As(err, &perr) {
		return fail(CodeUnsupported, "element %s cannot be reached (%s): it may be hidden or disabled; take a new snapshot", e.ref, perr.Message)
	}
	return err
}

// point scrolls e into view and returns the centre of its first box, in
// viewport coordinates.
func (s *session) point(ctx context.Context, e *element) (x, y float64, err error) {
	if _, err := chromedp.Call(ctx, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: e.backend}); err != nil {
		return 0, 0, notActionable(e, err)
	}
	q, err := chromedp.Call(ctx, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: e.backend})
	if err != nil {
		return 0, 0, notActionable(e, err)
	}
	for _, quad := range q.Quads {
		if len(quad) != 8 {
			continue
		}
		area := math.Abs((quad[4]-quad[0])*(quad[5]-quad[1])) + math.Abs((quad[2]-quad[0])*(quad[7]-quad[1]))
		if area < 1 {
			continue
		}
		return (quad[0] + quad[2] + quad[4] + quad[6]) / 4, (quad[1] + quad[3] + quad[5] + quad[7]) / 4, nil
	}
	return 0, 0, fail(CodeUnsupported, "element %s has no visible box (it is hidden, or has no size)", e.ref)
}

func mouse(ctx context.Context, typ input.DispatchMouseEventType, x, y float64) error {
	p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
	if typ != input.DispatchMouseEventTypeMouseMoved {
		p.Button, p.ClickCount = input.MouseButtonLeft, 1
	}
	if typ == input.DispatchMouseEventTypeMousePressed {
		p.Buttons = 1
	}
	_, err := chromedp.Call(ctx, input.DispatchMouseEvent, p)
	return err
}

// hitJS reports whether the element at (x, y) is this element or inside it,
// through shadow roots: something covering the element would get the click.
const hitJS = `function(x, y) {
	let h = document.elementFromPoint(x, y);
	while (h && h.shadowRoot) {
		const inner = h.shadowRoot.elementFromPoint(x, y);
		if (!inner || inner === h) break;
		h = inner;
	}
	for (let n = h; n; n = n.parentNode || n.host) if (n === this) return "";
	if (!h) return "nothing";
	let d = h.tagName.toLowerCase();
	if (h.id) d += "#" + h.id;
	if (typeof h.className === "string" && h.className.trim()) d += "." + h.className.trim().split(/\s+/).join(".");
	return d;
}`

// click clicks e with the mouse at its centre, as a person would. When
// another element covers that point (an overlay, a cookie banner), the
// click goes to e through script instead, and the result says what covered
// it.
func (s *session) click(ctx context.Context, e *element) (string, error) {
	x, y, err := s.point(ctx, e)
	var f *failure
	if errors.As(err, &f) && f.code == CodeUnsupported {
		// Hidden inputs behind styled labels have no box; a script click
		// still reaches them.
		if _, err := callOn[chromedp.Void](ctx, e, `function() { this.click() }`); err != nil {
			return "", err
		}
		return fmt.Sprintf("Clicked %s through script: it has no visible box of its own.", e.ref), nil
	} else if err != nil {
		return "", err
	}
	covered, err := callOn[string](ctx, e, hitJS, x, y)
	if err != nil {
		return "", err
	}
	if covered != "" {
		if _, err := callOn[chromedp.Void](ctx, e, `function() { this.click() }`); err != nil {
			return "", err
		}
		return fmt.Sprintf("Clicked %s through script: at its centre the page shows another element (%s) on top of it, which may be an overlay to close first.", e.ref, covered), nil
	}
	for _, t := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		if err := mouse(ctx, t, x, y); err != nil {
			return "", err
		}
	}
	return "Clicked " + e.ref + ".", nil
}

// kindJS describes an element for fill, select and check.
const kindJS = `function() {
	const t = this.tagName ? this.tagName.toLowerCase() : "";
	return {tag: t, type: (this.type || "").toLowerCase(), editable: !!this.isContentEditable,
		checked: this.checked === true || this.getAttribute && this.getAttribute("aria-checked") === "true",
		checkable: t === "input" && (this.type === "checkbox" || this.type === "radio") || !!(this.getAttribute && ["checkbox","radio","switch","menuitemcheckbox","menuitemradio"].includes(this.getAttribute("role"))),
		disabled: !!this.disabled, readOnly: !!this.readOnly};
}`

type kind struct {
	Tag       string `json:"tag"`
	Type      string `json:"type"`
	Editable  bool   `json:"editable"`
	Checked   bool   `json:"checked"`
	Checkable bool   `json:"checkable"`
	Disabled  bool   `json:"disabled"`
	ReadOnly  bool   `json:"readOnly"`
}

// fill replaces the content of a text field with value, as typing would
// (input events fire), or sets the files of a file input.
func (s *session) fill(ctx context.Context, env tool.Env, e *element, value string) (string, error) {
	k, err := callOn[kind](ctx, e, kindJS)
	if err != nil {
		return "", err
	}
	switch {
	case k.Tag == "input" && k.Type == "file":
		return setFiles(ctx, env, e, value)
	case k.Checkable:
		return "", fail(CodeUnsupported, "%s is a checkbox or radio button: use check or uncheck", e.ref)
	case k.Tag == "select":
		return selectOptions(ctx, e, value)
	case k.Tag != "input" && k.Tag != "textarea" && !k.Editable:
		return "", fail(CodeUnsupported, "%s is a %s, not a text field: fill takes an input, a textarea or an editable element", e.ref, k.Tag)
	case k.Disabled || k.ReadOnly:
		return "", fail(CodeUnsupported, "%s is disabled or read-only", e.ref)
	}
	if k.Tag == "input" && map[string]bool{"date": true, "time": true, "datetime-local": true, "month": true, "week": true, "color": true, "range": true}[k.Type] {
		// These inputs take no typed text; their value is set and announced.
		_, err := callOn[chromedp.Void](ctx, e, `function(v) { this.value = v; this.dispatchEvent(new Event("input", {bubbles: true})); this.dispatchEvent(new Event("change", {bubbles: true})) }`, value)
		if err != nil {
			return "", err
		}
	} else {
		// Select the current content and type over it, so the page sees
		// the input events a person's typing causes.
		_, err := callOn[chromedp.Void](ctx, e, `function() {
			this.focus();
			if (typeof this.select === "function") { this.select(); return }
			const r = document.createRange(); r.selectNodeContents(this);
			const s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
		}`)
		if err != nil {
			return "", err
		}
		if value == "" {
			err = press(ctx, "Delete")
		} else {
			_, err = chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: value})
		}
		if err != nil {
			return "", err
		}
	}
	got, err := callOn[string](ctx, e, `function() { return this.isContentEditable && !("value" in this) ? this.innerText : String(this.value) }`)
	if err != nil {
		return "", err
	}
	if got != value && strings.TrimRight(got, "\n") != value {
		return fmt.Sprintf("Filled %s, but the field now holds %q (the page changed or limited the text).", e.ref, clean(got)), nil
	}
	return fmt.Sprintf("Filled %s with %q.", e.ref, clean(value)), nil
}

// setFiles gives a file input files from the workspace: value holds one
// path per line, relative to the workspace (symlinks must stay inside it).
func setFiles(ctx context.Context, env tool.Env, e *element, value string) (string, error) {
	ws, err := workspace.Open(env.Workspace)
	if err != nil {
		return "", fail(CodeOutside, "file inputs take files from the workspace, and this call has none (%v)", err)
	}
	var files, names []string
	for _, p := range strings.Split(value, "\n") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		abs, err := ws.Resolve(p)
		switch {
		case errors.Is(err, workspace.ErrOutside), errors.Is(err, workspace.ErrInvalidPath):
			return "", fail(CodeOutside, "%v; a file input takes files from the workspace only", err)
		case err != nil:
			return "", fmt.Errorf("resolve %s: %w", p, err)
		}
		if !exists(abs) {
			return "", fail(CodeNotFound, "%s does not exist in the workspace", p)
		}
		files, names = append(files, abs), append(names, p)
	}
	if len(files) == 0 {
		return "", fail(tool.CodeInvalidArguments, "value must name a file of the workspace (one path per line) for a file input")
	}
	if _, err := chromedp.Call(ctx, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, BackendNodeID: e.backend}); err != nil {
		return "", notActionable(e, err)
	}
	return fmt.Sprintf("Set %s to %s.", e.ref, strings.Join(names, ", ")), nil
}

// selectJS picks options of a native select by value or label.
const selectJS = `function(want) {
	if (this.tagName !== "SELECT") return {error: "not a select"};
	const picked = [];
	for (const o of this.options) {
		const hit = want.includes(o.value) || want.includes(o.label) || want.includes(o.text.trim());
		if (this.multiple) o.selected = hit;
		else if (hit && !picked.length) this.value = o.value;
		if (hit && (this.multiple || !picked.length)) picked.push(o.label || o.text.trim());
	}
	if (!picked.length) return {error: "no option", options: Array.from(this.options, o => o.label || o.text.trim())};
	this.dispatchEvent(new Event("input", {bubbles: true}));
	this.dispatchEvent(new Event("change", {bubbles: true}));
	return {picked};
}`

func selectOptions(ctx context.Context, e *element, value string) (string, error) {
	var want []string
	for _, v := range strings.Split(value, "\n") {
		if v = strings.TrimSpace(v); v != "" {
			want = append(want, v)
		}
	}
	if len(want) == 0 {
		return "", fail(tool.CodeInvalidArguments, "select needs value: the option's label or value (one per line for several)")
	}
	res, err := callOn[struct {
		Error   string   `json:"error"`
		Options []string `json:"options"`
		Picked  []string `json:"picked"`
	}](ctx, e, selectJS, want)
	switch {
	case err != nil:
		return "", err
	case res.Error == "not a select":
		return "", fail(CodeUnsupported, "%s is not a native select: click it to open its list, then click the option", e.ref)
	case res.Error != "":
		opts := res.Options
		if len(opts) > 30 {
			opts = append(opts[:30:30], "…")
		}
		return "", fail(CodeNotFound, "%s has no option %q; its options are: %s", e.ref, value, strings.Join(quoteAll(opts), ", "))
	}
	return fmt.Sprintf("Selected %s in %s.", strings.Join(quoteAll(res.Picked), ", "), e.ref), nil
}

// check sets a checkbox, radio button or switch to on (or off) by clicking
// it when it is not so already, and checks that the click took.
func (s *session) check(ctx context.Context, e *element, on bool) (string, error) {
	k, err := callOn[kind](ctx, e, kindJS)
	if err != nil {
		return "", err
	}
	word := map[bool]string{true: "checked", false: "unchecked"}
	switch {
	case !k.Checkable:
		return "", fail(CodeUnsupported, "%s is not a checkbox, radio button or switch", e.ref)
	case k.Checked == on:
		return fmt.Sprintf("%s was already %s.", e.ref, word[on]), nil
	case !on && k.Type == "radio":
		return "", fail(CodeUnsupported, "%s is a radio button: it is unchecked by checking another of its group", e.ref)
	}
	what, err := s.click(ctx, e)
	if err != nil {
		return "", err
	}
	k, err = callOn[kind](ctx, e, kindJS)
	if err != nil {
		return "", err
	}
	if k.Checked != on {
		return fmt.Sprintf("%s Yet %s is still %s: the page did not take the click.", what, e.ref, word[!on]), nil
	}
	return fmt.Sprintf("%s It is now %s.", what, word[on]), nil
}
