package api_test

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"steward/backend/api"
)

var update = flag.Bool("update", false, "rewrite frontend/src/api/openapi.json from the Go wire types")

// openapiFile is the document as the UI's wire types are generated from it
// (frontend/src/api/schema.d.ts, by openapi-typescript; see make gen).
const openapiFile = "../../frontend/src/api/openapi.json"

// TestOpenAPIFile: the committed document is the one the server serves, so
// the UI's wire types are generated from the Go types as they are. When the
// wire changes, `make gen` (this test with -update, then npm run gen)
// refreshes both.
func TestOpenAPIFile(t *testing.T) {
	t.Parallel()
	doc, err := api.New(api.Config{}).OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	doc = append(doc, '\n')
	if *update {
		if err := os.WriteFile(openapiFile, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(openapiFile)
	if err != nil {
		t.Fatalf("%v: run make gen", err)
	}
	if !bytes.Equal(committed, doc) {
		t.Errorf("%s is stale: the Go wire types changed; run make gen and commit what it writes", openapiFile)
	}
}
