package api

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"steward/backend/store"
)

// The run list's cursor is opaque to clients: they send back the
// next_before of one page to get the next. It is the created_at and id of
// the page's last run (the list's order), base64url so that it needs no
// escaping in a URL; a client must not build one.
func encodeRunCursor(c store.RunCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.CreatedAt, 10) + " " + c.ID))
}

func decodeRunCursor(s string) (store.RunCursor, error) {
	if s == "" {
		return store.RunCursor{}, nil
	}
	bad := errorf(http.StatusBadRequest, CodeInvalid, "before "+strconv.Quote(s)+" is not a cursor of this list: send the next_before of the page before")
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return store.RunCursor{}, bad
	}
	at, id, ok := strings.Cut(string(b), " ")
	n, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || id == "" {
		return store.RunCursor{}, bad
	}
	return store.RunCursor{CreatedAt: n, ID: id}, nil
}
