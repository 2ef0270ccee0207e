package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults of WatchOptions.
const (
	DefaultMaxDirs = 8192
	DefaultSettle  = 100 * time.Millisecond
)

// skipDirs are folders never watched: their churn (git's own files,
// installed packages) is not the workspace's content.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// WatchOptions configure a Watcher; zero fields take the defaults.
type WatchOptions struct {
	// MaxDirs bounds the folders watched (one inotify watch each): a
	// larger tree is watched in part, and the watcher says so (Degraded).
	MaxDirs int
	// Settle is how long the watcher waits for a burst of events to end
	// before it reports the paths they touched.
	Settle time.Duration
}

// Watcher reports the files of a workspace that change, through
// fsnotify (inotify on Linux), for the journal to record changes no file
// tool made. Read-before-write does not depend on it: a write checks the
// file's content itself, so a watcher that had to give up (too many
// folders, no inotify watches left) only means external changes are noticed
// when the run next touches the file, not as they happen.
type Watcher struct {
	fw       *fsnotify.Watcher
	root     string
	opts     WatchOptions
	onChange func(changed []Changed)
	done     chan struct{}
	flush    chan chan struct{}

	mu       sync.Mutex
	dirs     int
	degraded string
}

// Changed is a path the watcher saw change: slash-separated, relative to
// the workspace. Created is set when it did not exist before: the first
// event of the burst created it, and it was not there when the watch
// started nor reported since.
type Changed struct {
	Path    string
	Created bool
}

// Watch starts watching the tree at root (absolute, symlink-resolved) and
// calls onChange, from the watcher's goroutine, with the paths that changed
// in each burst. Close stops it.
func Watch(root string, opts WatchOptions, onChange func(changed []Changed)) (*Watcher, error) {
	if opts.MaxDirs <= 0 {
		opts.MaxDirs = DefaultMaxDirs
	}
	if opts.Settle <= 0 {
		opts.Settle = DefaultSettle
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	w := &Watcher{fw: fw, root: root, opts: opts, onChange: onChange, done: make(chan struct{}), flush: make(chan chan struct{})}
	// The watches are in place when Watch returns: what the run does next
	// is seen. The files already there are the workspace as it was: a file
	// renamed over one of them (as editors save) is not new.
	existed := map[string]bool{}
	for _, f := range w.addTree(root) {
		existed[f] = true
	}
	go w.loop(existed)
	return w, nil
}

// Degraded says why the watcher does not see the whole tree, or "".
func (w *Watcher) Degraded() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.degraded
}

// flushWait is how long Flush lets the events of writes just made reach
// the watcher: the kernel queues them at once, fsnotify's reader takes a
// moment to pass them on.
const flushWait = 25 * time.Millisecond

// Flush reports what was seen so far without waiting for the burst to
// settle, and returns when onChange has returned. A command that just ended
// has its last writes reported as its own. A nil Watcher does nothing.
func (w *Watcher) Flush() {
	if w == nil {
		return
	}
	reply := make(chan struct{})
	select {
	case w.flush <- reply:
		<-reply
	case <-w.done:
	}
}

// Close stops the watcher and waits for its goroutine.
func (w *Watcher) Close() error {
	err := w.fw.Close()
	<-w.done
	return err
}

func (w *Watcher) degrade(why string) {
	w.mu.Lock()
	if w.degraded == "" {
		w.degraded = why
	}
	w.mu.Unlock()
}

// addTree watches dir and the folders beneath it, as many as allowed, and
// returns the files found in them: in a folder created just now they may
// have been written before its watch was in place.
func (w *Watcher) addTree(dir string) []string {
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable or gone: nothing to watch there
		}
		if !d.IsDir() {
			if rel, ok := w.rel(p); ok && d.Type().IsRegular() {
				files = append(files, rel)
			}
			return nil
		}
		if p != w.root && skipDirs[d.Name()] {
			return filepath.SkipDir
		}
		w.mu.Lock()
		full := w.dirs >= w.opts.MaxDirs
		if !full {
			w.dirs++
		}
		w.mu.Unlock()
		if full {
			w.degrade(fmt.Sprintf("the workspace has more than %d folders: changes made outside the run's file tools are noticed when the run next reads or writes a file", w.opts.MaxDirs))
			return filepath.SkipAll
		}
		if err := w.fw.Add(p); err != nil {
			if errors.Is(err, fsnotify.ErrClosed) {
				return filepath.SkipAll
			}
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
				w.degrade("no inotify watches left (raise fs.inotify.max_user_watches): changes made outside the run's file tools are noticed when the run next reads or writes a file")
				return filepath.SkipAll
			}
			return nil // a folder that vanished meanwhile
		}
		return nil
	})
	return files
}

func (w *Watcher) loop(existed map[string]bool) {
	defer close(w.done)
	pending := map[string]bool{} // path → created by the burst's first event of it
	var settle, flushAt <-chan time.Time
	var replies []chan struct{}
	report := func() {
		settle = nil
		if len(pending) == 0 {
			return
		}
		changed := make([]Changed, 0, len(pending))
		for p, created := range pending {
			changed = append(changed, Changed{Path: p, Created: created && !existed[p]})
			existed[p] = true
		}
		clear(pending)
		w.onChange(changed)
	}
	defer func() {
		for _, r := range replies {
			close(r)
		}
	}()
	for {
		select {
		case r := <-w.flush:
			replies = append(replies, r)
			if flushAt == nil {
				flushAt = time.After(flushWait)
			}
		case <-flushAt:
			flushAt = nil
			report()
			for _, r := range replies {
				close(r)
			}
			replies = nil
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			rel, ok := w.rel(ev.Name)
			if !ok {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					if !skipDirs[filepath.Base(ev.Name)] {
						for _, f := range w.addTree(ev.Name) {
							if _, seen := pending[f]; !seen {
								pending[f] = true // in a folder that did not exist
							}
						}
						if settle == nil && len(pending) > 0 {
							settle = time.After(w.opts.Settle)
						}
					}
					continue
				}
			}
			if ev.Op == fsnotify.Chmod {
				continue // the content did not change
			}
			if _, seen := pending[rel]; !seen {
				pending[rel] = ev.Has(fsnotify.Create)
			}
			if settle == nil {
				settle = time.After(w.opts.Settle)
			}
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.degrade("too many changes at once for inotify: some were not seen as they happened")
			}
		case <-settle:
			report()
		}
	}
}

// rel returns the workspace path of an event's name, false for what is not
// reported: the root itself, Steward's temporary files.
func (w *Watcher) rel(name string) (string, bool) {
	r, err := filepath.Rel(w.root, name)
	if err != nil || r == "." || strings.HasPrefix(r, "..") {
		return "", false
	}
	if IsTemp(filepath.Base(r)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}
