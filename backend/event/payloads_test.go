package event

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPayloadsListsEveryType: Payloads has each Type constant of event.go,
// once, with the payload its comment names; so a new event type cannot be
// left out of the API's document (and the UI's wire types).
func TestPayloadsListsEveryType(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "event.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // type -> payload named by its comment
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Type" {
				continue
			}
			lit, err := strconv.Unquote(v.Values[0].(*ast.BasicLit).Value)
			if err != nil {
				t.Fatal(err)
			}
			want[lit] = strings.TrimSpace(v.Comment.Text())
		}
	}
	if len(want) < 10 {
		t.Fatalf("found only %d event types in event.go: %v", len(want), want)
	}
	got := map[string]string{}
	for _, p := range Payloads() {
		if _, dup := got[string(p.Type)]; dup {
			t.Errorf("%s is listed twice", p.Type)
		}
		got[string(p.Type)] = reflect.TypeOf(p.Data).Name()
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Payloads (-event.go +Payloads):\n%s", diff)
	}
}
