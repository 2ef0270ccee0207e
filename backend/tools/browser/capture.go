package browser

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"steward/backend/tool"
)

// Limits of captures.
const (
	// maxShotHeight caps a full-page screenshot: Chromium fails on huge
	// surfaces, and a screenshot taller than this is unreadable anyway.
	maxShotHeight = 16384
	// DefaultExtractChars and MaxExtractChars bound browser_extract.
	DefaultExtractChars = 10000
	MaxExtractChars     = 100000
)

func (m *Manager) screenshotTool(ctx context.Context, env tool.Env, a screenshotArgs) (tool.Result, error) {
	if env.Artifacts == "" {
		return tool.Errorf(CodeNoArtifacts, "screenshots are not kept for this run (it has no artifacts directory); use browser_snapshot to read the page"), nil
	}
	if a.Ref != "" && a.FullPage {
		return tool.Errorf(tool.CodeInvalidArguments, "give ref or full_page, not both"), nil
	}
	return m.call(ctx, env, false, func(ctx context.Context, s *session) (tool.Result, error) {
		data, what, err := s.capture(ctx, a)
		if err != nil {
			return tool.Result{}, err
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return tool.Result{}, fmt.Errorf("screenshot is not a PNG: %w", err)
		}
		name, err := saveShot(env, data)
		if err != nil {
			return tool.Result{}, err
		}
		title, _ := chromedp.Run(ctx, chromedp.Title())
		desc := fmt.Sprintf("%s of %q (%s), %d×%d px", what, title, s.currentURL(), cfg.Width, cfg.Height)
		return tool.Result{
			Output: fmt.Sprintf("Took a screenshot: %s, saved as %s (%d KB). The user sees it; you get only this description.", desc, name, (len(data)+1023)/1024),
			Artifacts: []tool.Artifact{{
				Name: name, Kind: tool.ArtifactScreenshot, Mime: "image/png", Size: int64(len(data)), Description: desc,
			}},
		}, nil
	})
}

// capture takes the PNG: the viewport, the full page, or one element.
func (s *session) capture(ctx context.Context, a screenshotArgs) ([]byte, string, error) {
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, FromSurface: new(true)}
	what := "the visible part"
	switch {
	case a.Ref != "":
		e, err := s.element(ctx, a.Ref)
		if err != nil {
			return nil, "", err
		}
		if _, _, err := s.point(ctx, e); err != nil {
			return nil, "", err
		}
		// The element's box in page coordinates (the clip's frame).
		clip, err := callOn[page.Viewport](ctx, e, `function() {
			const r = this.getBoundingClientRect();
			return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height, scale: 1};
		}`)
		if err != nil {
			return nil, "", err
		}
		x, y := math.Floor(clip.X), math.Floor(clip.Y)
		clip.Width, clip.Height = math.Ceil(clip.Width+clip.X-x), math.Ceil(clip.Height+clip.Y-y)
		clip.X, clip.Y, clip.Scale = x, y, 1
		if clip.Width < 1 || clip.Height < 1 {
			return nil, "", fail(CodeUnsupported, "element %s has no visible size", a.Ref)
		}
		p.Clip, p.CaptureBeyondViewport = &clip, new(true)
		what = "element " + a.Ref
	case a.FullPage:
		m, err := chromedp.Call(ctx, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, "", err
		}
		if m.CSSContentSize == nil {
			return nil, "", fmt.Errorf("layout metrics without content size")
		}
		w, h := math.Ceil(m.CSSContentSize.Width), math.Ceil(m.CSSContentSize.Height)
		what = "the full page"
		if h > maxShotHeight {
			h = maxShotHeight
			what = fmt.Sprintf("the first %d px of the page", maxShotHeight)
		}
		p.Clip = &page.Viewport{Width: w, Height: h, Scale: 1}
		p.CaptureBeyondViewport = new(true)
	}
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, p)
	if err != nil {
		return nil, "", err
	}
	return res.Data, what, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// saveShot writes a screenshot under <env.Artifacts>/shots, named after the
// call's node, and returns its artifact name. Artifacts are the person's
// data (a page may show anything): folders 0700, files 0600.
func saveShot(env tool.Env, data []byte) (string, error) {
	dir := filepath.Join(env.Artifacts, "shots")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("screenshot directory: %w", err)
	}
	base := unsafeName.ReplaceAllString(env.NodeID, "_")
	if base == "" {
		base = "shot-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	}
	for i := 1; ; i++ {
		name := base + ".png"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.png", base, i)
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("save screenshot: %w", err)
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return "", fmt.Errorf("save screenshot: %w", werr)
		}
		return path.Join("shots", name), nil
	}
}

func (m *Manager) extractTool(ctx context.Context, env tool.Env, a extractArgs) (tool.Result, error) {
	switch {
	case a.Format == "":
		a.Format = "markdown"
	case a.Format != "markdown" && a.Format != "text":
		return tool.Errorf(tool.CodeInvalidArguments, fmt.Sprintf("format %q: use text or markdown", a.Format)), nil
	}
	if a.MaxChars < 0 || a.MaxChars > MaxExtractChars {
		return tool.Errorf(tool.CodeInvalidArguments, fmt.Sprintf("max_chars must be from 1 to %d", MaxExtractChars)), nil
	}
	if a.MaxChars == 0 {
		a.MaxChars = DefaultExtractChars
	}
	return m.call(ctx, env, false, func(ctx context.Context, s *session) (tool.Result, error) {
		type content struct {
			Title string `json:"title"`
			From  string `json:"from"`
			Text  string `json:"text"`
		}
		c, err := chromedp.Run(ctx, chromedp.Evaluate[content]("("+extractJS+")("+strconv.Quote(a.Format)+")"))
		if err != nil {
			return tool.Result{}, err
		}
		out := fmt.Sprintf("Page: %q\nURL: %s\nContent of %s as %s:\n\n", c.Title, s.currentURL(), c.From, a.Format)
		return tool.Result{Output: out + capText(c.Text, a.MaxChars, "call again with a larger max_chars, or use browser_snapshot with a selector for one part")}, nil
	})
}

// extractJS returns the page's readable content: the main or article
// element when there is one, else the body, without scripts, navigation and
// hidden elements; as text, or as markdown that keeps headings, lists,
// links, code, quotes and tables.
const extractJS = `function(format) {
	const root = document.querySelector("main, [role=main]") || document.querySelector("article") || document.body;
	if (!root) return {title: document.title, from: "nothing", text: ""};
	const from = root === document.body ? "the body" : "the " + root.tagName.toLowerCase() + " element";
	if (format === "text") return {title: document.title, from, text: root.innerText.replace(/\n{3,}/g, "\n\n").trim()};
	const skip = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "CANVAS", "IFRAME", "NAV", "FOOTER", "BUTTON", "SELECT", "INPUT", "TEXTAREA"]);
	const hidden = el => { const s = getComputedStyle(el); return s.display === "none" || s.visibility === "hidden"; };
	const inline = (n) => {
		if (n.nodeType === 3) return n.nodeValue.replace(/\s+/g, " ");
		if (n.nodeType !== 1 || skip.has(n.tagName) || hidden(n)) return "";
		const inner = Array.from(n.childNodes, inline).join("");
		switch (n.tagName) {
		case "A": { const h = n.getAttribute("href"); return h && !h.startsWith("javascript:") && inner.trim() ? "[" + inner.trim() + "](" + n.href + ")" : inner; }
		case "STRONG": case "B": return inner.trim() ? "**" + inner.trim() + "** " : "";
		case "EM": case "I": return inner.trim() ? "*" + inner.trim() + "* " : "";
		case "CODE": return inner.trim() ? "` + "`" + `" + inner.trim() + "` + "`" + `" : "";
		case "BR": return "\n";
		case "IMG": return n.alt ? "![" + n.alt + "]" : "";
		}
		return block(n) ? "\n" + blocks(n) + "\n" : inner;
	};
	const blockTags = new Set(["P","DIV","SECTION","ARTICLE","MAIN","HEADER","ASIDE","UL","OL","LI","H1","H2","H3","H4","H5","H6","PRE","BLOCKQUOTE","TABLE","FORM","FIGURE","DL","DT","DD","HR"]);
	const block = n => n.nodeType === 1 && blockTags.has(n.tagName);
	const blocks = (el) => {
		if (skip.has(el.tagName) || hidden(el)) return "";
		const t = el.tagName;
		if (/^H[1-6]$/.test(t)) return "#".repeat(+t[1]) + " " + el.innerText.trim();
		if (t === "PRE") return "` + "```" + `\n" + el.innerText.replace(/\n$/, "") + "\n` + "```" + `";
		if (t === "HR") return "---";
		if (t === "UL" || t === "OL") return Array.from(el.children).filter(li => li.tagName === "LI").map((li, i) =>
			(t === "OL" ? (i + 1) + ". " : "- ") + blocks(li).trim().replace(/\n/g, "\n  ")).join("\n");
		if (t === "BLOCKQUOTE") return blocks2(el).trim().split("\n").map(l => "> " + l).join("\n");
		if (t === "TABLE") {
			const rows = Array.from(el.rows, r => "| " + Array.from(r.cells, c => c.innerText.trim().replace(/\s+/g, " ").replace(/\|/g, "\\|")).join(" | ") + " |");
			if (!rows.length) return "";
			const n = el.rows[0].cells.length;
			rows.splice(1, 0, "|" + " --- |".repeat(n));
			return rows.join("\n");
		}
		return blocks2(el);
	};
	const blocks2 = (el) => {
		const out = []; let run = "";
		for (const c of el.childNodes) {
			if (block(c)) { if (run.trim()) out.push(run.trim()); run = ""; const b = blocks(c); if (b.trim()) out.push(b.trim()); }
			else run += inline(c);
		}
		if (run.trim()) out.push(run.trim());
		return out.join("\n\n");
	};
	return {title: document.title, from, text: blocks(root).replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim()};
}`
