//go:build !desktop

package app

import (
	"context"
	"errors"
	"testing"
)

func TestStub(t *testing.T) {
	t.Parallel()
	if Available() {
		t.Error("Available() = true in a build without the desktop tag")
	}
	err := Run(context.Background(), Options{URL: "http://127.0.0.1:1/?token=x"})
	if !errors.Is(err, ErrNotBuilt) {
		t.Errorf("Run: err = %v, want ErrNotBuilt", err)
	}
}
