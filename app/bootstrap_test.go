package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBootstrapHandler(t *testing.T) {
	t.Parallel()
	const target = `http://127.0.0.1:4567/?token=a"b</script>&x=1`
	const redirect = `location.replace("http://127.0.0.1:4567/?token=a\"b\u003c/script\u003e\u0026x=1")`
	tests := []struct {
		name     string
		redirect bool
		path     string
		wantCode int
	}{
		{"root", true, "/", http.StatusOK},
		{"index", true, "/index.html", http.StatusOK},
		{"root without redirect", false, "/", http.StatusOK},
		{"other path", true, "/favicon.ico", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := bootstrapHandler("Steward", target, tt.redirect)
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
			if rec.Code != tt.wantCode {
				t.Fatalf("GET %s: code %d, want %d", tt.path, rec.Code, tt.wantCode)
			}
			if tt.wantCode != http.StatusOK {
				return
			}
			body := rec.Body.String()
			// The URL must reach location.replace as one escaped JS string: the quote and
			// the closing tag in it must not end the string or the script.
			if got := strings.Contains(body, redirect); got != tt.redirect {
				t.Errorf("redirect in body = %v, want %v:\n%s", got, tt.redirect, body)
			}
			if !tt.redirect && strings.Contains(body, "token=") {
				t.Errorf("page without redirect leaks the token:\n%s", body)
			}
			if got := rec.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
		})
	}
}

func TestOptionsWithDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      Options
		wantErr bool
		want    Options
	}{
		{name: "empty url", in: Options{}, wantErr: true},
		{name: "relative url", in: Options{URL: "/?token=x"}, wantErr: true},
		{name: "javascript url", in: Options{URL: "javascript:alert(1)"}, wantErr: true},
		{
			name: "defaults",
			in:   Options{URL: "http://127.0.0.1:1/?token=x"},
			want: Options{URL: "http://127.0.0.1:1/?token=x", Title: "Steward", Width: 1280, Height: 860},
		},
		{
			name: "kept",
			in:   Options{URL: "http://127.0.0.1:1/", Title: "T", Width: 10, Height: 20},
			want: Options{URL: "http://127.0.0.1:1/", Title: "T", Width: 10, Height: 20},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.in.withDefaults()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got.Logf == nil {
				t.Error("Logf is nil, want a no-op")
			}
			got.Logf = nil // funcs do not compare; checked above
			type plain struct {
				URL, Title    string
				Width, Height int
			}
			if g, w := (plain{got.URL, got.Title, got.Width, got.Height}), (plain{tt.want.URL, tt.want.Title, tt.want.Width, tt.want.Height}); g != w {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
