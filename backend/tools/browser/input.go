package browser

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"steward/backend/tool"
)

// scroll scrolls the page or an element: value is up, down (a screen's
// worth), top, bottom or a number of pixels (negative: up). With a ref and
// no value it brings the element into view.
func scroll(ctx context.Context, e *element, value string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(value))
	if e != nil && v == "" {
		if _, err := chromedp.Call(ctx, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: e.backend}); err != nil {
			return "", notActionable(e, err)
		}
		return "Scrolled " + e.ref + " into view.", nil
	}
	if v == "" {
		v = "down"
	}
	var dy string
	switch v {
	case "down":
		dy = "h * 0.8"
	case "up":
		dy = "-h * 0.8"
	case "top":
		dy = "-1e9"
	case "bottom":
		dy = "1e9"
	default:
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "", fail(tool.CodeInvalidArguments, "scroll value %q: give up, down, top, bottom or a number of pixels", value)
		}
		dy = strconv.FormatFloat(n, 'f', -1, 64)
	}
	fn := `function() {
		const el = this === window || this === undefined || this === document ? document.scrollingElement : this;
		const h = el === document.scrollingElement ? window.innerHeight : el.clientHeight;
		el.scrollBy(0, ` + dy + `);
		return {top: Math.round(el.scrollTop), max: Math.round(el.scrollHeight - h)};
	}`
	type pos struct {
		Top int `json:"top"`
		Max int `json:"max"`
	}
	var p pos
	var err error
	if e != nil {
		p, err = callOn[pos](ctx, e, fn)
	} else {
		p, err = chromedp.Run(ctx, chromedp.Evaluate[pos]("("+fn+").call(document)"))
	}
	if err != nil {
		return "", err
	}
	what := "the page"
	if e != nil {
		what = e.ref
	}
	return fmt.Sprintf("Scrolled %s %s: now %d px from the top of %d px scrollable.", what, v, p.Top, p.Max), nil
}

// wait waits a number of milliseconds (value a number, default 1000, at
// most 30000) or until the page shows a text (value anything else, at most
// 30 s).
func wait(ctx context.Context, value string) (string, error) {
	v := strings.TrimSpace(value)
	if v == "" {
		v = strconv.Itoa(int(defaultWait / time.Millisecond))
	}
	if ms, err := strconv.Atoi(v); err == nil {
		d := min(max(time.Duration(ms)*time.Millisecond, 0), maxWait)
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return fmt.Sprintf("Waited %s.", d), nil
	}
	start := time.Now()
	deadline := time.NewTimer(maxWait)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		found, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!document.body && document.body.innerText.includes("+strconv.Quote(v)+")"))
		if err != nil {
			return "", err
		}
		if found {
			return fmt.Sprintf("The page shows %q (after %s).", v, time.Since(start).Round(10*time.Millisecond)), nil
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return fmt.Sprintf("The page did not show %q within %s.", v, maxWait), nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// modifiers are the bits of Input.dispatchKeyEvent's modifiers field.
var modifiers = map[string]int64{"alt": 1, "control": 2, "ctrl": 2, "meta": 4, "cmd": 4, "command": 4, "shift": 8}

// press presses one key or chord: "Enter", "Tab", "ArrowDown", "a",
// "Control+a", "Shift+Tab".
func press(ctx context.Context, chord string) error {
	parts := strings.Split(chord, "+")
	if chord == "+" || strings.HasSuffix(chord, "++") {
		parts = append(parts[:len(parts)-2], "+")
	}
	var mods int64
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifiers[strings.ToLower(strings.TrimSpace(p))]
		if !ok {
			return fail(tool.CodeInvalidArguments, "unknown modifier %q in %q: use Control, Shift, Alt or Meta", p, chord)
		}
		mods |= m
	}
	k := keyNamed(strings.TrimSpace(parts[len(parts)-1]))
	if k == nil {
		return fail(tool.CodeInvalidArguments, "unknown key %q: use a key name such as Enter, Tab, Escape, Backspace, Delete, ArrowDown, PageDown, Home, F5, or one character", parts[len(parts)-1])
	}
	down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Modifiers: mods, Key: k.Key, Code: k.Code,
		WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native}
	// A printable key without Control, Alt or Meta produces text (Enter
	// submits a form, a letter is typed); a chord is a shortcut only.
	if k.Print && mods&^8 == 0 {
		down.Type, down.Text, down.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, k.Text, k.Unmodified
		if mods&8 != 0 && k.Text != "" {
			down.Text = strings.ToUpper(k.Text)
		}
	}
	up := down
	up.Type, up.Text, up.UnmodifiedText = input.DispatchKeyEventTypeKeyUp, "", ""
	for _, p := range []input.DispatchKeyEventParams{down, up} {
		if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, p); err != nil {
			return err
		}
	}
	return nil
}

// keyNamed finds a key by its DOM key name (case-insensitive) or as one
// character.
func keyNamed(name string) *kb.Key {
	if r := []rune(name); len(r) == 1 {
		return kb.Keys[r[0]]
	}
	switch strings.ToLower(name) {
	case "space":
		return kb.Keys[' ']
	case "esc":
		name = "Escape"
	case "return":
		name = "Enter"
	case "del":
		name = "Delete"
	case "up", "down", "left", "right":
		name = "Arrow" + name
	}
	for _, k := range kb.Keys {
		if strings.EqualFold(k.Key, name) {
			return k
		}
	}
	return nil
}
