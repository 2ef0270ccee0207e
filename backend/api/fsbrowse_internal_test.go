package api

import (
	"errors"
	"io/fs"
	"net/http"
	"syscall"
	"testing"
)

// TestPathError covers the mapping of folder errors, including permission
// denied, which the end-to-end listing test cannot produce when it runs as
// root (as CI does): root reads every folder.
func TestPathError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err    error
		status int
		code   string
	}{
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, http.StatusForbidden, CodeForbidden},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, http.StatusNotFound, CodeNotFound},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOTDIR}, http.StatusNotFound, CodeNotFound},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENAMETOOLONG}, http.StatusBadRequest, CodeInvalid},
	}
	for _, tt := range tests {
		var ae *Error
		if err := pathError("/x", tt.err); !errors.As(err, &ae) || ae.Status != tt.status || ae.Code != tt.code {
			t.Errorf("pathError(%v) = %v, want %d %s", tt.err, err, tt.status, tt.code)
		}
	}
	if err := pathError("/x", syscall.EIO); classify(err).Status != http.StatusInternalServerError {
		t.Errorf("an unexpected error is not internal: %v", err)
	}
}
