package browser

import (
	"context"
	"errors"
	"net/url"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// maxFrames bounds the frames one snapshot reads (two or three round trips
// each); a page with more shows the rest as bare iframe lines.
const maxFrames = 20

// frameTree is what a snapshot shows of a frame. The tab's accessibility
// tree stops at each iframe element: a frame in the page's renderer (same
// site) has a tree of its own, read by frame id; a frame of another site
// runs in another process, a target of its own (site isolation), whose
// nodes the tab's session cannot reach, so only its address is shown.
type frameTree struct {
	nodes []*accessibility.Node // nil: out of process
	url   string                // the frame's document, "" when unknown
}

// frameTrees reads the frames whose iframe elements are among nodes, and
// the frames within those, keyed by the iframe element's backend node id.
// Refs of nodes in same-site frames work as any other: backend node ids
// are unique within the renderer, and the tab's DOM domain resolves them in
// every frame of its process.
func frameTrees(ctx context.Context, nodes []*accessibility.Node) (map[cdp.BackendNodeID]*frameTree, error) {
	var owners []cdp.BackendNodeID
	collect := func(nodes []*accessibility.Node) {
		for _, n := range nodes {
			// The role is compared undecoded: this runs on every node of
			// every snapshot, and most pages have no frame.
			if n.Role != nil && string(n.Role.Value) == `"Iframe"` && n.BackendDOMNodeID != 0 {
				owners = append(owners, n.BackendDOMNodeID)
			}
		}
	}
	collect(nodes)
	if len(owners) == 0 {
		return nil, nil
	}
	frames := map[cdp.BackendNodeID]*frameTree{}
	for i := 0; i < len(owners) && i < maxFrames; i++ {
		d, err := chromedp.Call(ctx, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: owners[i]})
		if gone(err) {
			continue // removed since the tree was read
		} else if err != nil {
			return nil, err
		}
		if d.Node.FrameID == "" {
			continue
		}
		if doc := d.Node.ContentDocument; doc == nil {
			// An out-of-process frame's target id is its frame id.
			info, err := chromedp.CallBrowser(ctx, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: target.ID(d.Node.FrameID)})
			ft := &frameTree{}
			if err == nil && info.TargetInfo != nil {
				ft.url = info.TargetInfo.URL
			} else if !gone(err) {
				return nil, err
			}
			frames[owners[i]] = ft
			continue
		}
		res, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{FrameID: d.Node.FrameID})
		if gone(err) {
			// The frame moved out of process (it navigated to another
			// site) since it was described.
			frames[owners[i]] = &frameTree{}
			continue
		} else if err != nil {
			return nil, err
		}
		frames[owners[i]] = &frameTree{nodes: res.Nodes, url: d.Node.ContentDocument.DocumentURL}
		collect(res.Nodes)
	}
	return frames, nil
}

// gone reports whether err is Chromium's answer about a node or frame that
// is not (or no longer) there; other errors are the session's.
func gone(err error) bool {
	var perr *cdproto.Error
	return errors.As(err, &perr)
}

// frame renders an iframe element's line, head, and the content of its
// frame under it.
func (r *renderer) frame(head string, ft *frameTree, depth int) {
	if ft.nodes == nil {
		where := "another site"
		if ft.url != "" && ft.url != "about:blank" {
			where = ft.url
		}
		r.line(depth, head+": (a frame from "+where+": its content is not shown here; browser_open its address to read it)")
		return
	}
	c := &renderer{byID: make(map[accessibility.NodeID]*accessibility.Node, len(ft.nodes)), ref: r.ref, frames: r.frames}
	c.base, _ = url.Parse(ft.url)
	var top *accessibility.Node
	for _, n := range ft.nodes {
		c.byID[n.NodeID] = n
		if top == nil && n.ParentID == "" {
			top = n
		}
	}
	if ft.url != "" && ft.url != "about:blank" {
		head += " url=" + r.short(ft.url)
	}
	r.line(depth, head)
	if top != nil {
		c.children(top, depth+1)
		r.b.WriteString(c.b.String())
	}
}
