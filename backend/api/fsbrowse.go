package api

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// DirList is a folder of the server's machine and its subfolders, the
// answer of GET /api/v1/fs/dirs: the UI's folder picker walks the disk with
// it to choose a run's workspace.
type DirList struct {
	// Path is the folder listed, absolute and cleaned.
	Path string `json:"path"`
	// Parent is the folder above Path; empty (omitted) at the root.
	Parent string     `json:"parent,omitempty"`
	Dirs   []DirEntry `json:"dirs"`
	// Truncated says Dirs holds only the first maxDirs subfolders.
	Truncated bool `json:"truncated"`
	// Home is the user's home folder; empty when it is unknown.
	Home string `json:"home"`
}

// DirEntry is a subfolder in a DirList.
type DirEntry struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Link says the entry is a symbolic link to a folder.
	Link bool `json:"link,omitempty"`
}

// maxDirs bounds a listing so that a folder with a huge number of
// subfolders cannot make an answer the UI chokes on; nobody scrolls past a
// thousand names to pick a workspace.
const maxDirs = 1000

// listDirs answers GET /api/v1/fs/dirs?path=ABS. The token guards it like
// every /api route: it reveals folder names of the user's disk.
func (s *Server) listDirs(w http.ResponseWriter, r *http.Request) error {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "" // unknown ($HOME unset): an empty path and ~ are refused
	}
	p, err := dirPath(qDirsPath.get(r), home)
	if err != nil {
		return err
	}
	list, err := readDirs(p)
	if err != nil {
		return err
	}
	list.Home = home
	writeJSON(w, http.StatusOK, list)
	return nil
}

// dirPath turns the path parameter into an absolute, clean path: empty is
// home, and ~ or ~/x are expanded against it.
func dirPath(p, home string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", errorf(http.StatusBadRequest, CodeInvalid, "path contains a NUL byte")
	}
	if p == "" || p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		if home == "" {
			return "", errorf(http.StatusBadRequest, CodeInvalid, "the home folder of the server's user is unknown: give an absolute path")
		}
		if p == "" {
			return home, nil
		}
		return filepath.Join(home, p[1:]), nil
	}
	if !filepath.IsAbs(p) {
		return "", errorf(http.StatusBadRequest, CodeInvalid, "path "+strconv.Quote(p)+" is not absolute")
	}
	return filepath.Clean(p), nil
}

// readDirs lists the subfolders of p: real folders and symbolic links to
// folders, sorted case-insensitively with hidden ones last, at most maxDirs.
// Entries that cannot be read (a dangling link, a link loop) are left out.
func readDirs(p string) (DirList, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return DirList{}, pathError(p, err)
	}
	if !fi.IsDir() {
		return DirList{}, errorf(http.StatusBadRequest, CodeInvalid, "path "+strconv.Quote(p)+" is not a folder")
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return DirList{}, pathError(p, err)
	}
	list := DirList{Path: p, Dirs: []DirEntry{}}
	if parent := filepath.Dir(p); parent != p {
		list.Parent = parent
	}
	for _, e := range entries {
		d := DirEntry{Name: e.Name(), Path: filepath.Join(p, e.Name())}
		switch {
		case e.IsDir():
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Stat(d.Path)
			if err != nil || !target.IsDir() {
				continue
			}
			d.Link = true
		default:
			continue
		}
		list.Dirs = append(list.Dirs, d)
	}
	slices.SortFunc(list.Dirs, func(a, b DirEntry) int {
		return cmp.Or(
			cmp.Compare(hidden(a.Name), hidden(b.Name)),
			cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)),
			cmp.Compare(a.Name, b.Name),
		)
	})
	if len(list.Dirs) > maxDirs {
		list.Dirs, list.Truncated = list.Dirs[:maxDirs], true
	}
	return list, nil
}

// hidden is 1 for a dot folder, which sorts after the others.
func hidden(name string) int {
	if strings.HasPrefix(name, ".") {
		return 1
	}
	return 0
}

// pathError maps a failure to stat or read folder p to the API's errors;
// only the unexpected ones reach the log, as internal.
func pathError(p string, err error) error {
	q := strconv.Quote(p)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return errorf(http.StatusNotFound, CodeNotFound, "folder "+q+" does not exist")
	case errors.Is(err, fs.ErrPermission):
		return errorf(http.StatusForbidden, CodeForbidden, "permission denied to read folder "+q)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return errorf(http.StatusBadRequest, CodeInvalid, "path "+q+" is too long")
	}
	return fmt.Errorf("list folder %s: %w", p, err)
}
