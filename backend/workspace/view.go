package workspace

// FilesView is a run's changed files with their diffs: what the Files tab
// shows, computed from the run's journal (ViewFiles).
type FilesView struct {
	Files []FileView `json:"files"`
}

// FileView is one file the run changed (or saw changed), with the diff of
// the whole run (from before its first change to after its last) and each
// change.
type FileView struct {
	Path string `json:"path"`
	// Status is added, modified, deleted or unchanged (changed and changed
	// back), comparing before the run's first change with now.
	Status string `json:"status"`
	// External is set when a change came from outside the run's file tools:
	// a command of the run, a person, another program.
	External bool `json:"external"`
	// Ignored is set for a generated file or one the workspace's .gitignore
	// names: not shown as a change unless the person asks.
	Ignored  bool         `json:"ignored,omitempty"`
	Diff     string       `json:"diff,omitempty"`
	DiffNote string       `json:"diff_note,omitempty"`
	Changes  []ChangeView `json:"changes"`
}

// ChangeView is one change of a file, with its own diff.
type ChangeView struct {
	Seq           int64  `json:"seq"`
	NodeID        string `json:"node_id,omitempty"`
	Op            string `json:"op"`
	Source        string `json:"source"` // tool, command, external, undo
	Undoes        string `json:"undoes,omitempty"`
	Before        string `json:"before,omitempty"`
	After         string `json:"after,omitempty"`
	BeforeUnknown bool   `json:"before_unknown,omitempty"`
	Size          int64  `json:"size"`
	CreatedAt     int64  `json:"created_at"`
	Diff          string `json:"diff,omitempty"`
	DiffNote      string `json:"diff_note,omitempty"`
}

// Logged is one change of a run's files as the run's log recorded it (a
// file.changed event): the change, its op and seq, the node that made it,
// its source and what it undid, and when.
type Logged struct {
	Recorded
	NodeID, Source, Undoes string
	CreatedAt              int64
}

// ViewOptions say where the contents of a view's diffs come from.
type ViewOptions struct {
	// Content returns a kept content by its sum, ok false when it was not
	// kept; nil shows the changes without diffs.
	Content func(sum string) (b []byte, ok bool)
	// Missing is the note of a diff whose content was not kept.
	Missing string
	// Ignored, when set, says which paths are generated or ignored files
	// (FileView.Ignored).
	Ignored func(path string) bool
}

// Sources of a change that the run's file tools did not make
// (event.FileByCommand, event.FileByExternal).
const (
	sourceCommand  = "command"
	sourceExternal = "external"
)

// noteBeforeUnknown is the note of a diff from a content the run never saw.
const noteBeforeUnknown = "what the file held before is not known: it changed before the run had seen it"

// ViewFiles returns the files view of a run's journal, changes in the order
// of the log: one file per path in the order first changed, each with the
// diff of the whole run and of every change. The player of a recording
// computes the same view in the browser (frontend/src/player/filesView.ts),
// pinned to this one by the fold fixtures (backend/run/testdata/fold).
func ViewFiles(changes []Logged, o ViewOptions) FilesView {
	byPath := map[string]*FileView{}
	first := map[string]Logged{}
	var order []string
	for _, c := range changes {
		f := byPath[c.Path]
		if f == nil {
			f = &FileView{Path: c.Path}
			byPath[c.Path] = f
			first[c.Path] = c
			order = append(order, c.Path)
		}
		cv := ChangeView{Seq: c.Seq, NodeID: c.NodeID, Op: c.Op, Source: c.Source, Undoes: c.Undoes, Before: c.Before,
			After: c.After, BeforeUnknown: c.BeforeUnknown, Size: c.Size, CreatedAt: c.CreatedAt}
		cv.Diff, cv.DiffNote = o.diff(c.Path, c.Before, c.After, c.BeforeUnknown)
		f.Changes = append(f.Changes, cv)
		if c.Source == sourceCommand || c.Source == sourceExternal {
			f.External = true
		}
	}
	out := FilesView{Files: make([]FileView, 0, len(order))}
	for _, p := range order {
		f, c0 := byPath[p], first[p]
		last := f.Changes[len(f.Changes)-1]
		switch {
		case c0.BeforeUnknown:
			f.Status = "modified"
		case c0.Before == "" && last.After != "":
			f.Status = "added"
		case c0.Before != "" && last.After == "":
			f.Status = "deleted"
		case c0.Before == last.After:
			f.Status = "unchanged"
		default:
			f.Status = "modified"
		}
		f.Diff, f.DiffNote = o.diff(p, c0.Before, last.After, c0.BeforeUnknown)
		f.Ignored = o.Ignored != nil && o.Ignored(p)
		out.Files = append(out.Files, *f)
	}
	return out
}

// diff is the diff of a file between two kept contents ("" sums: absent).
func (o ViewOptions) diff(path, before, after string, beforeUnknown bool) (string, string) {
	if o.Content == nil {
		return "", ""
	}
	if beforeUnknown {
		return "", noteBeforeUnknown
	}
	get := func(sum string) ([]byte, bool) {
		if sum == "" {
			return nil, true
		}
		b, ok := o.Content(sum)
		if ok && b == nil {
			b = []byte{}
		}
		return b, ok
	}
	a, ok1 := get(before)
	b, ok2 := get(after)
	if !ok1 || !ok2 {
		return "", o.Missing
	}
	return Diff(path, a, b)
}
