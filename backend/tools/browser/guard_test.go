package browser

import (
	"strings"
	"testing"
)

func TestAllowed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		globs []string
		host  string
		want  bool
	}{
		{nil, "anything.example", true},
		{[]string{"example.com"}, "example.com", true},
		{[]string{"example.com"}, "EXAMPLE.com:443", true},
		{[]string{"example.com"}, "www.example.com", false},
		{[]string{"*.example.com"}, "a.b.example.com", true},
		{[]string{"*.example.com"}, "example.com", false},
		{[]string{"*.example.com"}, "evilexample.com", false},
		{[]string{"127.0.0.1"}, "127.0.0.1:8080", true},
		{[]string{"127.0.0.1"}, "localhost:8080", false},
		{[]string{"127.0.0.1:8080"}, "127.0.0.1:8080", true},
		{[]string{"127.0.0.1:8080"}, "127.0.0.1:9090", false},
		{[]string{"[::1]"}, "[::1]:80", true},
		{[]string{"", "docs.*"}, "docs.go.dev", true},
	}
	for _, tt := range tests {
		if got := allowed(tt.globs, tt.host); got != tt.want {
			t.Errorf("allowed(%q, %q) = %v", tt.globs, tt.host, got)
		}
	}
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url, code, says string
	}{
		{"about:blank", "", ""},
		{"https://example.com/x", "", ""},
		{"file:///etc/passwd", CodeInvalidURL, "file: URLs cannot be opened"},
		{"javascript:alert(1)", CodeInvalidURL, "javascript: URLs cannot be opened"},
		{"chrome://settings", CodeInvalidURL, "chrome: URLs"},
		{"example.com", CodeInvalidURL, "no scheme"},
		{"localhost:8080/x", CodeInvalidURL, "no scheme"},
		{"https://other.org/", CodeRefused, `may only browse "example.com"`},
	}
	for _, tt := range tests {
		res, ok := checkURL(tt.url, []string{"example.com"})
		if ok != (tt.code == "") || res.Code != tt.code || !strings.Contains(res.Output, tt.says) {
			t.Errorf("checkURL(%q) = %+v, %v", tt.url, res, ok)
		}
	}
}

func TestKeyNamed(t *testing.T) {
	t.Parallel()
	for name, key := range map[string]string{"Enter": "Enter", "enter": "Enter", "Tab": "Tab", "esc": "Escape", "down": "ArrowDown", "PageDown": "PageDown", "a": "a", "space": " ", "F5": "F5"} {
		if k := keyNamed(name); k == nil || k.Key != key {
			t.Errorf("keyNamed(%q) = %+v", name, k)
		}
	}
	if k := keyNamed("NoSuchKey"); k != nil {
		t.Errorf("unknown key: %+v", k)
	}
}
