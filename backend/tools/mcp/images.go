package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig reads what a server sends
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path"
	"path/filepath"
	"regexp"

	"steward/backend/tool"
)

// maxImageBytes is the largest picture of a server's kept: the engine
// sends a model none over 3.75 MiB (5 MiB in base64), and a server may
// send anything.
const maxImageBytes = 8 << 20

// maxImagesPerResult bounds how many pictures of one result are kept; the
// others are described only.
const maxImagesPerResult = 8

// imageFormats are the picture types kept, by MIME type, with the format
// image.DecodeConfig must find in the bytes and the file's extension.
var imageFormats = map[string]struct{ format, ext string }{
	"image/png":  {"png", ".png"},
	"image/jpeg": {"jpeg", ".jpg"},
	"image/gif":  {"gif", ".gif"},
}

// pictures keeps a result's images in the run's artifacts folder, where
// the person sees them and the engine attaches the PNGs and JPEGs to the
// result for a model that takes images.
type pictures struct {
	env          tool.Env
	server, tool string
	kept         []tool.Artifact
}

// keep saves one picture and returns the line the model reads of it: the
// type, the size and what became of it. A picture that is not kept says
// why.
func (p *pictures) keep(mime string, data []byte) string {
	head := fmt.Sprintf("[image %s, %d bytes", mime, len(data))
	f, ok := imageFormats[mime]
	switch {
	case p == nil || p.env.Artifacts == "":
		return head + ": not kept (this call has no artifacts folder)]"
	case !ok:
		return head + ": not kept (Steward keeps PNG, JPEG and GIF pictures)]"
	case len(data) > maxImageBytes:
		return head + fmt.Sprintf(": not kept (over %d MiB)]", maxImageBytes>>20)
	case len(p.kept) >= maxImagesPerResult:
		return head + fmt.Sprintf(": not kept (only the first %d pictures of a result are)]", maxImagesPerResult)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || format != f.format {
		return head + ": not kept (its bytes are not the picture its type says)]"
	}
	name, err := p.save(data, f.ext)
	if err != nil {
		return head + ": not kept (" + err.Error() + ")]"
	}
	desc := fmt.Sprintf("%s picture from MCP server %s's %s, %d×%d px", f.format, p.server, p.tool, cfg.Width, cfg.Height)
	p.kept = append(p.kept, tool.Artifact{Name: name, Kind: tool.ArtifactImage, Mime: mime, Size: int64(len(data)), Description: desc})
	return head + fmt.Sprintf(", %d×%d px: saved as %s]", cfg.Width, cfg.Height, name)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// save writes a picture under <env.Artifacts>/mcp, named after the call's
// node, and returns its artifact name. Artifacts are the person's data:
// folders 0700, files 0600, and no file is replaced.
func (p *pictures) save(data []byte, ext string) (string, error) {
	dir := filepath.Join(p.env.Artifacts, "mcp")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("artifacts folder: %w", err)
	}
	base := unsafeName.ReplaceAllString(p.env.NodeID, "_")
	if base == "" || base == "." || base == ".." {
		base = "image"
	}
	for i := 1; i < 1000; i++ {
		name := fmt.Sprintf("%s-%d%s", base, i, ext)
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("save: %w", err)
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			_ = os.Remove(f.Name()) // half written: what removing says adds nothing
			return "", fmt.Errorf("save: %w", werr)
		}
		return path.Join("mcp", name), nil
	}
	return "", errors.New("save: 999 pictures of this node already")
}
