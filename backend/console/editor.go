package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"steward/backend/event"
)

// editInEditor edits an approval's arguments in the person's editor: the
// pretty-printed JSON in a private temporary file, read back when the
// editor closes. A file left unchanged (or emptied) keeps the model's
// arguments; one that is not a JSON object is opened again, with the error
// said, until it is or the person gives up (an empty answer to "again?").
func (c *Console) editInEditor(ctx context.Context, d event.ApprovalRequestedData) (json.RawMessage, bool) {
	var pretty bytes.Buffer
	if json.Indent(&pretty, d.Arguments, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(d.Arguments)
	}
	pretty.WriteByte('\n')
	dir, err := os.MkdirTemp("", "steward-edit-")
	if err != nil {
		fmt.Fprintf(c.Out, "  could not make a file to edit (%v): keeping the model's arguments\n", err)
		return d.Arguments, true
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, d.Tool+".json")
	if err := os.WriteFile(path, pretty.Bytes(), 0o600); err != nil {
		fmt.Fprintf(c.Out, "  could not write %s (%v): keeping the model's arguments\n", path, err)
		return d.Arguments, true
	}
	for {
		fmt.Fprintf(c.Out, "  editing the arguments in your editor (%s)…\n", path)
		if err := c.EditFile(ctx, path); err != nil {
			fmt.Fprintf(c.Out, "  the editor failed (%v): keeping the model's arguments\n", err)
			return d.Arguments, true
		}
		b, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(c.Out, "  could not read %s back (%v): keeping the model's arguments\n", path, err)
			return d.Arguments, true
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 || bytes.Equal(b, bytes.TrimSpace(pretty.Bytes())) {
			return d.Arguments, true
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err == nil && obj != nil {
			var compact bytes.Buffer
			_ = json.Compact(&compact, b)
			return json.RawMessage(compact.Bytes()), true
		}
		fmt.Fprint(c.Out, "  that is not a JSON object; edit again? [Y/n] ")
		ans, ok := c.line(ctx)
		if !ok || ctx.Err() != nil {
			return nil, false
		}
		if ans == "n" || ans == "no" {
			return d.Arguments, true
		}
	}
}
