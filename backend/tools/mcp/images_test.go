package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"steward/backend/tool"
	"steward/backend/tools/mcp"
	"steward/backend/tools/mcp/mcptest"
)

// A server's pictures are kept as the run's artifacts, for the person and
// for a model that takes images (the engine attaches PNG and JPEG
// artifacts of a node to its result); what is no picture of the type it
// claims, or of a type Steward does not keep, is described only.
func TestImagesKeptAsArtifacts(t *testing.T) {
	t.Parallel()
	for kind, srv := range transports(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			reg, _, _ := setup(t, map[string]mcp.Server{"fx": srv}, nil)
			dir := t.TempDir()
			env := tool.Env{RunID: "run_1", NodeID: "node/../7", Artifacts: dir}
			res, err := reg.Call(context.Background(), env, "mcp__fx__pictures", json.RawMessage(`{}`))
			if err != nil || res.IsError {
				t.Fatalf("%+v, %v", res, err)
			}
			if len(res.Artifacts) != 1 {
				t.Fatalf("artifacts %+v, want the one real PNG", res.Artifacts)
			}
			a := res.Artifacts[0]
			// The node's ID cannot name a file outside the folder.
			if a.Name != "mcp/node_.._7-1.png" || a.Kind != tool.ArtifactImage || a.Mime != "image/png" || a.Size != int64(len(mcptest.PNG)) ||
				!strings.Contains(a.Description, "MCP server fx's pictures, 3×2 px") {
				t.Errorf("artifact %+v", a)
			}
			path := filepath.Join(dir, filepath.FromSlash(a.Name))
			b, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(b, mcptest.PNG) {
				t.Errorf("the file %s: %d bytes, %v", path, len(b), err)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("the file's mode: %v, %v", fi.Mode(), err)
			}
			for _, want := range []string{
				"[image image/png, " + strconv.Itoa(len(mcptest.PNG)) + " bytes, 3×2 px: saved as mcp/node_.._7-1.png]",
				"[image image/png, 9 bytes: not kept (its bytes are not the picture its type says)]",
				"[image image/svg+xml, 6 bytes: not kept (Steward keeps PNG, JPEG and GIF pictures)]",
			} {
				if !strings.Contains(res.Output, want) {
					t.Errorf("output %q lacks %q", res.Output, want)
				}
			}
			// A second call of the same node (a retry) replaces nothing.
			res, err = reg.Call(context.Background(), env, "mcp__fx__pictures", json.RawMessage(`{}`))
			if err != nil || len(res.Artifacts) != 1 || res.Artifacts[0].Name != "mcp/node_.._7-2.png" {
				t.Errorf("again: %+v, %v", res, err)
			}
			// Without an artifacts folder nothing is written: the model is
			// told.
			res, err = reg.Call(context.Background(), tool.Env{RunID: "run_1"}, "mcp__fx__pictures", json.RawMessage(`{}`))
			if err != nil || len(res.Artifacts) != 0 || !strings.Contains(res.Output, "not kept (this call has no artifacts folder)") {
				t.Errorf("without a folder: %+v, %v", res, err)
			}
		})
	}
}
