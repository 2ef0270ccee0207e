// Package elicit holds what Steward accepts of an MCP server's elicitation
// (a request for the person's input while a tool call runs): the flat form
// schemas MCP allows, the pages of url mode, and answers that meet them.
//
// A server is not trusted: what it asks for is checked before a person
// sees it (CheckSchema, CheckURL), and what the person sends back is
// checked against what was asked (Content) before the server gets it. The
// MCP client checks the request, the inbox checks the answer; both read
// the rules here.
package elicit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Limits on what a server may ask and a person may answer.
const (
	MaxSchema     = 64 << 10
	MaxProperties = 50
	MaxOptions    = 200
	MaxContent    = 64 << 10
	MaxMessage    = 8 << 10
	MaxURL        = 4 << 10
)

// Formats are the string formats MCP's schemas may name.
var Formats = []string{"email", "uri", "date", "date-time"}

// property is what a property of a requested schema may say. Keywords
// outside it are refused: a person must see every constraint the answer is
// held to, and the form cannot show one it does not know.
type property struct {
	Type        string   `json:"type"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Default     any      `json:"default,omitempty"`
	MinLength   *int     `json:"minLength,omitempty"`
	MaxLength   *int     `json:"maxLength,omitempty"`
	Format      string   `json:"format,omitempty"`
	Minimum     *float64 `json:"minimum,omitempty"`
	Maximum     *float64 `json:"maximum,omitempty"`
	Enum        []any    `json:"enum,omitempty"`
	EnumNames   []string `json:"enumNames,omitempty"`
	OneOf       []choice `json:"oneOf,omitempty"`
	AnyOf       []choice `json:"anyOf,omitempty"`
	Items       *items   `json:"items,omitempty"`
	MinItems    *int     `json:"minItems,omitempty"`
	MaxItems    *int     `json:"maxItems,omitempty"`
}

type choice struct {
	Const any    `json:"const"`
	Title string `json:"title,omitempty"`
}

type items struct {
	Type  string   `json:"type,omitempty"`
	Enum  []any    `json:"enum,omitempty"`
	AnyOf []choice `json:"anyOf,omitempty"`
}

type object struct {
	Schema     string                     `json:"$schema,omitempty"`
	Type       string                     `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required,omitempty"`
}

// CheckSchema reports what is wrong with a form elicitation's requested
// schema, nil when it is one MCP allows: an object of at most
// MaxProperties properties, each a string, number, integer or boolean, or
// an array of enumerated strings, with no nesting, references or keywords
// beyond those.
func CheckSchema(raw json.RawMessage) error {
	_, err := parse(raw)
	return err
}

func parse(raw json.RawMessage) (map[string]property, error) {
	if len(raw) > MaxSchema {
		return nil, fmt.Errorf("the requested schema is %d bytes, more than %d", len(raw), MaxSchema)
	}
	var o object
	if err := strict(raw, &o); err != nil {
		return nil, fmt.Errorf("the requested schema: %v", err)
	}
	if o.Type != "object" {
		return nil, fmt.Errorf("the requested schema has type %q, not object", o.Type)
	}
	if len(o.Properties) > MaxProperties {
		return nil, fmt.Errorf("the requested schema has %d properties, more than %d", len(o.Properties), MaxProperties)
	}
	props := make(map[string]property, len(o.Properties))
	for name, praw := range o.Properties {
		var p property
		if err := strict(praw, &p); err != nil {
			return nil, fmt.Errorf("property %q: %v", name, err)
		}
		if err := checkProperty(p); err != nil {
			return nil, fmt.Errorf("property %q: %v", name, err)
		}
		props[name] = p
	}
	for _, r := range o.Required {
		if _, ok := props[r]; !ok {
			return nil, fmt.Errorf("required property %q is not among the properties", r)
		}
	}
	return props, nil
}

// strict decodes raw into v, refusing keywords v does not have.
func strict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}

func checkProperty(p property) error {
	switch p.Type {
	case "string":
		if p.Format != "" && !slices.Contains(Formats, p.Format) {
			return fmt.Errorf("format %q is not one of %s", p.Format, strings.Join(Formats, ", "))
		}
		if p.Items != nil || p.AnyOf != nil || p.MinItems != nil || p.MaxItems != nil || p.Minimum != nil || p.Maximum != nil {
			return fmt.Errorf("a string takes no items, anyOf, minItems, maxItems, minimum or maximum")
		}
		if len(p.Enum) > MaxOptions || len(p.OneOf) > MaxOptions {
			return fmt.Errorf("more than %d options", MaxOptions)
		}
		if len(p.EnumNames) > 0 && len(p.EnumNames) != len(p.Enum) {
			return fmt.Errorf("%d enumNames for %d enum values", len(p.EnumNames), len(p.Enum))
		}
		if err := allStrings(p.Enum); err != nil {
			return err
		}
		return constStrings(p.OneOf)
	case "number", "integer", "boolean":
		if p.Format != "" || p.Enum != nil || p.OneOf != nil || p.AnyOf != nil || p.Items != nil || p.MinLength != nil || p.MaxLength != nil || p.MinItems != nil || p.MaxItems != nil {
			return fmt.Errorf("a %s takes only title, description, default, minimum and maximum", p.Type)
		}
		if p.Type == "boolean" && (p.Minimum != nil || p.Maximum != nil) {
			return fmt.Errorf("a boolean takes no minimum or maximum")
		}
		return nil
	case "array":
		if p.Items == nil || (p.Items.Enum == nil) == (p.Items.AnyOf == nil) {
			return fmt.Errorf("an array must be of enumerated strings: items with enum or anyOf")
		}
		if p.Items.Type != "" && p.Items.Type != "string" {
			return fmt.Errorf("items of type %q: only strings are enumerated", p.Items.Type)
		}
		if p.Format != "" || p.Enum != nil || p.OneOf != nil || p.AnyOf != nil || p.MinLength != nil || p.MaxLength != nil || p.Minimum != nil || p.Maximum != nil {
			return fmt.Errorf("an array takes only title, description, default, items, minItems and maxItems")
		}
		if len(p.Items.Enum) > MaxOptions || len(p.Items.AnyOf) > MaxOptions {
			return fmt.Errorf("more than %d options", MaxOptions)
		}
		if err := allStrings(p.Items.Enum); err != nil {
			return err
		}
		return constStrings(p.Items.AnyOf)
	case "":
		return fmt.Errorf("no type")
	}
	return fmt.Errorf("type %q is not string, number, integer, boolean or array", p.Type)
}

func allStrings(vs []any) error {
	for _, v := range vs {
		if _, ok := v.(string); !ok {
			return fmt.Errorf("enum value %v is not a string", v)
		}
	}
	return nil
}

func constStrings(cs []choice) error {
	for _, c := range cs {
		if _, ok := c.Const.(string); !ok {
			return fmt.Errorf("option %v: const is not a string", c.Const)
		}
	}
	return nil
}

// Message is a server's message as a person reads it: valid UTF-8, no
// control characters but line breaks and tabs, at most MaxMessage bytes
// (cut at a character's start, with an ellipsis). It is shown as text,
// never as markup.
func Message(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, strings.ToValidUTF8(s, ""))
	if len(s) <= MaxMessage {
		return s
	}
	const ellipsis = "…"
	cut := MaxMessage - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// CheckURL reports what is wrong with a url elicitation's page: it must be
// an absolute https URL, or http on a loopback host, with no credentials
// in it.
func CheckURL(raw string) error {
	if len(raw) > MaxURL {
		return fmt.Errorf("the url is %d bytes, more than %d", len(raw), MaxURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("the url: %v", err)
	}
	switch {
	case u.Host == "":
		return fmt.Errorf("the url %q has no host", raw)
	case u.User != nil:
		return fmt.Errorf("the url carries credentials")
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && loopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("the url's scheme is %q: only https (or http on this machine) is opened", u.Scheme)
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Content checks a person's answer to a form elicitation against its
// schema and returns it compact, with the schema's defaults filled in for
// properties the answer leaves out (SEP-1034: a server may count on them).
// Properties the schema does not have are refused: the server gets nothing
// it did not ask for.
func Content(schema, content json.RawMessage) (json.RawMessage, error) {
	props, err := parse(schema)
	if err != nil {
		return nil, err
	}
	if len(content) > MaxContent {
		return nil, fmt.Errorf("the answer is %d bytes, more than %d", len(content), MaxContent)
	}
	var answer map[string]any
	if len(bytes.TrimSpace(content)) == 0 {
		content = json.RawMessage("{}")
	}
	if err := json.Unmarshal(content, &answer); err != nil || answer == nil {
		return nil, fmt.Errorf("the answer must be a JSON object")
	}
	var names []string
	for name := range answer {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p, ok := props[name]
		if !ok {
			return nil, fmt.Errorf("%q is not a field of this form", name)
		}
		if err := checkFormat(p, answer[name]); err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
	}
	for name, p := range props {
		if _, ok := answer[name]; !ok && p.Default != nil {
			answer[name] = p.Default
		}
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the requested schema: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("the requested schema: %v", err)
	}
	if err := rs.Validate(answer); err != nil {
		return nil, fmt.Errorf("the answer does not meet the form: %v", err)
	}
	return json.Marshal(answer)
}

// checkFormat checks what the schema's validator leaves to the client: a
// string's format.
func checkFormat(p property, v any) error {
	s, ok := v.(string)
	if !ok || p.Format == "" {
		return nil
	}
	var err error
	switch p.Format {
	case "email":
		var a *mail.Address
		if a, err = mail.ParseAddress(s); err == nil && a.Address != s {
			err = fmt.Errorf("not a bare address")
		}
	case "uri":
		var u *url.URL
		if u, err = url.Parse(s); err == nil && (u.Scheme == "" || (u.Host == "" && u.Opaque == "")) {
			err = fmt.Errorf("not an absolute URI")
		}
	case "date":
		_, err = time.Parse(time.DateOnly, s)
	case "date-time":
		_, err = time.Parse(time.RFC3339, s)
	}
	if err != nil {
		return fmt.Errorf("%q is not a valid %s", s, p.Format)
	}
	return nil
}

// Field is one field of a form, for a surface that asks field by field
// (the terminal).
type Field struct {
	Name, Title, Description string
	Type                     string // string, number, integer, boolean, array
	Required                 bool
	Default                  any
	// Options are an enumeration's values, with Labels to show (the
	// value itself when it has none); Multiple takes several (an array).
	Options, Labels []string
	Multiple        bool
}

// Fields are the fields of a form's schema, in the order the schema gives.
func Fields(schema json.RawMessage) ([]Field, error) {
	props, err := parse(schema)
	if err != nil {
		return nil, err
	}
	var o object
	_ = json.Unmarshal(schema, &o) // parse read it
	var out []Field
	for _, name := range order(schema) {
		p, ok := props[name]
		if !ok {
			continue // a name given twice: the last is the property
		}
		f := Field{Name: name, Title: p.Title, Description: p.Description, Type: p.Type, Required: slices.Contains(o.Required, name), Default: p.Default}
		if f.Title == "" {
			f.Title = name
		}
		add := func(vs []any, names []string, cs []choice) {
			for i, v := range vs {
				f.Options = append(f.Options, v.(string))
				label := v.(string)
				if i < len(names) {
					label = names[i]
				}
				f.Labels = append(f.Labels, label)
			}
			for _, c := range cs {
				label := c.Title
				if label == "" {
					label = c.Const.(string)
				}
				f.Options, f.Labels = append(f.Options, c.Const.(string)), append(f.Labels, label)
			}
		}
		add(p.Enum, p.EnumNames, p.OneOf)
		if p.Items != nil {
			f.Multiple = true
			add(p.Items.Enum, nil, p.Items.AnyOf)
		}
		out = append(out, f)
	}
	return out, nil
}

// order is the names of the schema's properties in the order its text
// gives them: Go's maps keep none, and a form reads in the order its
// author wrote.
func order(schema json.RawMessage) []string {
	var o struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &o) != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(o.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return names
		}
		name, _ := t.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return names
		}
		names = append(names, name)
	}
	return names
}
