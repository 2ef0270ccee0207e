package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// private are what the data directory holds that must be its owner's alone:
// the database and its journal (every event of every run), the token, the
// config file (it may hold keys), and the folders of file contents,
// artifacts, replays and the sandbox's caches.
var private = []string{"steward.db", "steward.db-wal", "steward.db-shm", "token", "config.json", "blobs", "artifacts", "replays", "sandbox-cache"}

// dataDirChecks checks that the data directory and what it holds are open
// to their owner only: 0700 for folders, 0600 for files (no bit for the
// group or others).
func dataDirChecks(home string) []Check {
	const name = "data directory"
	fi, err := os.Stat(home)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return []Check{{Name: name, Status: OK, Detail: home + " does not exist yet: Steward makes it (mode 0700) on first start"}}
	case err != nil:
		return []Check{{Name: name, Status: Fail, Detail: err.Error()}}
	case !fi.IsDir():
		return []Check{{Name: name, Status: Fail, Detail: home + " is not a folder"}}
	}
	var open []string
	if fi.Mode().Perm()&0o077 != 0 {
		open = append(open, fmt.Sprintf("%s (%04o)", home, fi.Mode().Perm()))
	}
	for _, p := range private {
		path := filepath.Join(home, p)
		fi, err := os.Lstat(path)
		if err != nil {
			continue // not made yet
		}
		if fi.Mode().Perm()&0o077 != 0 {
			open = append(open, fmt.Sprintf("%s (%04o)", path, fi.Mode().Perm()))
		}
	}
	if len(open) > 0 {
		return []Check{{Name: name, Status: Fail, Detail: "open to other users of this machine: " + strings.Join(open, ", ") +
			"; fix it with: chmod -R go-rwx " + home}}
	}
	return []Check{{Name: name, Status: OK, Detail: home + " is private to its owner"}}
}
