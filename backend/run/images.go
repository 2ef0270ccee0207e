package run

import (
	"errors"
	"os"
	"path/filepath"

	"steward/backend/event"
	"steward/backend/llm"
)

// maxImages is how many of the latest pictures a model that takes images
// is sent. Each costs a thousand tokens or more, and older ones show pages
// the model has moved on from; their text (a description and the
// picture's name) stays in the conversation.
const maxImages = 3

// maxImageBytes is the largest picture sent: 5 MiB once in base64, the
// Anthropic API's limit per image. A larger one is described only.
const maxImageBytes = 5 << 20 / 4 * 3

// picture is an image a tool call produced, in the run's artifacts folder.
type picture struct{ name, mime string }

// notePicture folds an artifact.created event: a PNG or JPEG of a tool
// node may go to the model with the node's result.
func (r *Fold) notePicture(ev event.Event) {
	var d event.ArtifactCreatedData
	if ev.NodeID == "" || ev.Decode(&d) != nil || (d.Mime != "image/png" && d.Mime != "image/jpeg") || d.Size > maxImageBytes {
		return
	}
	if r.pictures == nil {
		r.pictures = map[string][]picture{}
	}
	r.pictures[ev.NodeID] = append(r.pictures[ev.NodeID], picture{d.Name, d.Mime})
}

// picked returns, by index in msgs (the fold's request), the pictures of
// the latest tool results that have some, up to maxImages in all. It looks
// at those results only, not at the whole conversation.
func (r *Fold) picked(msgs []llm.Message) map[int][]picture {
	out := map[int][]picture{}
	n := 0
	for k := len(r.pictured) - 1; k >= 0 && n < maxImages; k-- {
		i := r.pictured[k]
		if i >= len(msgs) {
			continue
		}
		m := msgs[i]
		if m.Role != llm.RoleTool {
			continue
		}
		pics := r.pictures[r.resultNode[m.ToolCallID]]
		if len(pics) == 0 {
			continue
		}
		if len(pics) > maxImages-n {
			pics = pics[len(pics)-(maxImages-n):]
		}
		out[i] = pics
		n += len(pics)
	}
	return out
}

// withImages returns msgs with the picked pictures read from dir and
// attached to their tool results. The messages changed are copies: the
// run's conversation never holds image bytes. A picture that cannot be
// read is left out; the model still has its description.
func withImages(msgs []llm.Message, picks map[int][]picture, dir string, logf func(string, ...any)) []llm.Message {
	if len(picks) == 0 || dir == "" {
		return msgs
	}
	out := append([]llm.Message(nil), msgs...)
	for i, pics := range picks {
		var imgs []llm.Image
		for _, p := range pics {
			if !filepath.IsLocal(filepath.FromSlash(p.name)) {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p.name)))
			if err != nil || len(b) == 0 || len(b) > maxImageBytes {
				logf("picture %s not sent to the model: %v (%d bytes)", p.name, err, len(b))
				continue
			}
			imgs = append(imgs, llm.Image{MediaType: p.mime, Data: b})
		}
		if len(imgs) > 0 {
			out[i].Images = imgs
		}
	}
	return out
}

// refusedImages reports whether err is a server's refusal of a request
// (400 and the like): with images attached, the likely cause is a model
// that takes none.
func refusedImages(err error) bool {
	var le *llm.Error
	return errors.As(err, &le) && le.Kind == llm.ErrInvalid
}

// withoutImages returns msgs with no images, copying the messages changed.
func withoutImages(msgs []llm.Message) []llm.Message {
	out := append([]llm.Message(nil), msgs...)
	for i := range out {
		out[i].Images = nil
	}
	return out
}
