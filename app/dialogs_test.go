package app

import (
	"context"
	"errors"
	"testing"
)

func TestDialogsWithoutWindow(t *testing.T) {
	t.Parallel()
	var d Dialogs
	if _, err := d.take(); !errors.Is(err, ErrNoWindow) {
		t.Fatalf("take before the window = %v, want ErrNoWindow", err)
	}
	d.attach(context.Background())
	if _, err := d.take(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.take(); err == nil {
		t.Fatal("a second dialog while one is open")
	}
	d.release()
	if _, err := d.take(); err != nil {
		t.Fatalf("after release: %v", err)
	}
	d.release()
	d.attach(nil)
	if _, err := d.take(); !errors.Is(err, ErrNoWindow) {
		t.Fatalf("take after the window = %v", err)
	}
}
