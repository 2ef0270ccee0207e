package workspace

import (
	"fmt"
	"sync"
)

// Change is one change of one file, as the journal records it: sums of the
// content before and after ("" before: the file did not exist; "" after: it
// was deleted).
type Change struct {
	Path          string
	Before, After string
	BeforeUnknown bool
	Size          int64
}

// Journal is what one run knows of its workspace's files: the content it
// read or wrote last of each (so that a file tool changes only what the run
// has seen, as it is now), and the changes its tools made, waiting to be
// recorded. It implements tool.Files. The engine keeps one per active run;
// after a restart it starts empty, so the model reads a file again before
// changing it.
type Journal struct {
	blobs *Blobs

	mu sync.Mutex
	// read holds the sum of the content the run last read or wrote.
	read map[string]string
	// seen holds the sum of what the run last knew to be on disk ("" for
	// absent): its reads, its writes, the changes recorded. The watcher
	// records a change only when the disk differs from it.
	seen    map[string]string
	pending []Change
}

// NewJournal returns an empty journal keeping contents in blobs.
func NewJournal(blobs *Blobs) *Journal {
	return &Journal{blobs: blobs, read: map[string]string{}, seen: map[string]string{}}
}

// Read notes that the run read path, whose whole content is content.
func (j *Journal) Read(path string, content []byte) {
	sum := Sum(content)
	j.mu.Lock()
	j.read[path], j.seen[path] = sum, sum
	j.mu.Unlock()
}

// CheckWrite allows a change of path only when the run read (or wrote) its
// current content; a new file may always be created.
func (j *Journal) CheckWrite(path string, current []byte, exists bool) error {
	if !exists {
		return nil
	}
	sum := Sum(current)
	j.mu.Lock()
	r, ok := j.read[path]
	j.mu.Unlock()
	switch {
	case !ok:
		return fmt.Errorf("%s exists and this run has not read it: read it with read_file first, then change it", path)
	case r != sum:
		return fmt.Errorf("%s changed on disk since this run last read it (a person, a command or another run changed it): read it again, then change it", path)
	}
	return nil
}

// Changed records a change made by a file tool of the run: the contents go
// to the blobs, the change waits for Take, and the new content counts as
// read.
func (j *Journal) Changed(path string, before, after []byte) error {
	c := Change{Path: path, Size: int64(len(after))}
	var err error
	if before != nil {
		if c.Before, err = j.blobs.Put(before); err != nil {
			return err
		}
	}
	if after != nil {
		if c.After, err = j.blobs.Put(after); err != nil {
			return err
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if after != nil {
		j.read[path] = c.After
	} else {
		delete(j.read, path)
	}
	j.seen[path] = c.After
	j.pending = append(j.pending, c)
	return nil
}

// Take returns the changes recorded since the last Take.
func (j *Journal) Take() []Change {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := j.pending
	j.pending = nil
	return out
}

// Expect tells the journal that path is about to have the content sum (""
// for deleted), written by Steward itself (an undo): the watcher must not
// take it for someone else's change. What the run read stays as it was, so
// the model reads the file again before changing it.
func (j *Journal) Expect(path, sum string) {
	j.mu.Lock()
	j.seen[path] = sum
	j.mu.Unlock()
}

// Observe is the watcher's report that path now has the content sum (""
// when it does not exist); created says the file did not exist before.
// When that is not what the run knew, it returns the change to record (its
// before is unknown for a file the run had never seen, unless it was just
// created), and what the run read of path no longer counts.
func (j *Journal) Observe(path, sum string, size int64, created bool) (Change, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	before, known := j.seen[path]
	if known && before == sum {
		return Change{}, false
	}
	if !known && sum == "" {
		return Change{}, false // a file the run never knew, gone: nothing to say
	}
	j.seen[path] = sum
	delete(j.read, path)
	return Change{Path: path, Before: before, After: sum, BeforeUnknown: !known && !created, Size: size}, true
}

// Known seeds what the run knew of path from its log, after a restart: the
// content its last recorded change left.
func (j *Journal) Known(path, sum string) {
	j.mu.Lock()
	j.seen[path] = sum
	j.mu.Unlock()
}
