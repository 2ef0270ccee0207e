package elicit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"steward/backend/elicit"
)

// defaults is the schema of the conformance suite's SEP-1034 scenario.
const defaults = `{"type":"object","properties":{
	"name":{"type":"string","description":"User name","default":"John Doe"},
	"age":{"type":"integer","description":"User age","default":30},
	"score":{"type":"number","description":"User score","default":95.5},
	"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
	"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}`

const form = `{"type":"object","properties":{
	"email":{"type":"string","format":"email","title":"Email"},
	"site":{"type":"string","format":"uri"},
	"day":{"type":"string","format":"date"},
	"name":{"type":"string","minLength":2,"maxLength":5},
	"n":{"type":"integer","minimum":1,"maximum":3},
	"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"maxItems":1}},
	"required":["name"]}`

func TestSchemasMCPAllowsAndNoOthers(t *testing.T) {
	for _, ok := range []string{defaults, form, `{"type":"object","properties":{}}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"x":{"type":"string","enum":["a"],"enumNames":["A"]}}}`,
		`{"type":"object","properties":{"m":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}}}`} {
		if err := elicit.CheckSchema(json.RawMessage(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, c := range []struct{ schema, want string }{
		{`[]`, "cannot unmarshal"},
		{`{"type":"string"}`, "not object"},
		{`{"type":"object","properties":{"o":{"type":"object"}}}`, `property "o": type "object"`},
		{`{"type":"object","properties":{"o":{"type":"string","pattern":"x"}}}`, `unknown field "pattern"`},
		{`{"type":"object","properties":{"o":{"$ref":"#/x"}}}`, `unknown field "$ref"`},
		{`{"type":"object","properties":{"o":{"type":"array","items":{"type":"number"}}}}`, "enumerated strings"},
		{`{"type":"object","properties":{"o":{"type":"string","format":"ipv4"}}}`, `format "ipv4"`},
		{`{"type":"object","properties":{"o":{"type":"string","enum":[1]}}}`, "not a string"},
		{`{"type":"object","properties":{"o":{"type":"string"}},"required":["p"]}`, `"p" is not among`},
		{`{"type":"object","properties":{"o":{}}}`, "no type"},
		{`{"type":"object","properties":{},"additionalProperties":true}`, "additionalProperties"},
		{`{"type":"object","properties":{"o":{"type":"string","enum":["a","b"],"enumNames":["A"]}}}`, "1 enumNames for 2"},
	} {
		err := elicit.CheckSchema(json.RawMessage(c.schema))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.schema, err, c.want)
		}
	}
	many := `{"type":"object","properties":{`
	for i := range 51 {
		if i > 0 {
			many += ","
		}
		many += `"p` + strings.Repeat("x", i) + `":{"type":"string"}`
	}
	if err := elicit.CheckSchema(json.RawMessage(many + "}}")); err == nil || !strings.Contains(err.Error(), "51 properties") {
		t.Errorf("51 properties: %v", err)
	}
}

func TestContentFillsDefaultsAndMeetsTheForm(t *testing.T) {
	got, err := elicit.Content(json.RawMessage(defaults), json.RawMessage(`{"age": 41}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"age":41,"name":"John Doe","score":95.5,"status":"active","verified":true}`; string(got) != want {
		t.Errorf("content %s, want %s", got, want)
	}
	if got, err = elicit.Content(json.RawMessage(form), json.RawMessage(`{"name":"Ann","email":"a@b.example","n":2,"color":"g","tags":["b"],"site":"https://x.example/p","day":"2026-12-02"}`)); err != nil {
		t.Fatalf("a good answer: %v", err)
	}
	for _, c := range []struct{ content, want string }{
		{`{}`, "name"},
		{`{"name":"A"}`, "name"},
		{`{"name":"Ann","n":2.5}`, "n"},
		{`{"name":"Ann","n":4}`, "n"},
		{`{"name":"Ann","color":"b"}`, "color"},
		{`{"name":"Ann","tags":["a","b"]}`, "tags"},
		{`{"name":"Ann","tags":["c"]}`, "tags"},
		{`{"name":"Ann","email":"Ann <a@b.example>"}`, "email: "},
		{`{"name":"Ann","email":"nope"}`, "email: "},
		{`{"name":"Ann","site":"/relative"}`, "site: "},
		{`{"name":"Ann","day":"02/12/2026"}`, "day: "},
		{`{"name":"Ann","extra":1}`, `"extra" is not a field`},
		{`[1]`, "JSON object"},
		{`null`, "JSON object"},
	} {
		_, err := elicit.Content(json.RawMessage(form), json.RawMessage(c.content))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.content, err, c.want)
		}
	}
}

func TestURLsOpenedForAPerson(t *testing.T) {
	for _, ok := range []string{"https://auth.example/consent?x=1", "http://127.0.0.1:8080/cb", "http://localhost/x", "http://[::1]:9/"} {
		if err := elicit.CheckURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"javascript:alert(1)", "http://example.com/", "file:///etc/passwd", "https://user:pw@example.com/", "https:///nohost", "data:text/html,x", "/relative"} {
		if err := elicit.CheckURL(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func TestFieldsInTheSchemasOrder(t *testing.T) {
	fs, err := elicit.Fields(json.RawMessage(form))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "email site day name n color tags" {
		t.Errorf("fields %s", got)
	}
	if c := fs[5]; strings.Join(c.Options, ",") != "r,g" || strings.Join(c.Labels, ",") != "Red,Green" || c.Multiple {
		t.Errorf("color %+v", c)
	}
	if tags := fs[6]; !tags.Multiple || strings.Join(tags.Labels, ",") != "a,b" {
		t.Errorf("tags %+v", tags)
	}
	if !fs[3].Required || fs[0].Required || fs[0].Title != "Email" || fs[1].Title != "site" {
		t.Errorf("fields %+v", fs)
	}
}
