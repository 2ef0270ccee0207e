package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// counted is an Encodings whose encoders say what they encoded: the head as
// its model, each message as its position and text.
type counted struct {
	c     Encodings[string, string]
	heads int
	msgs  []int // positions encoded by the last Encode
}

func (c *counted) encode(t *testing.T, req Request) []string {
	t.Helper()
	c.msgs = nil
	h, encs, err := c.c.Encode(req,
		func(r Request) (string, error) { c.heads++; return r.Model, nil },
		func(i int, m Message) (string, error) {
			c.msgs = append(c.msgs, i)
			b, _ := json.Marshal(m)
			return string(b), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if h != req.Model {
		t.Fatalf("head %q, want %q", h, req.Model)
	}
	// Whatever was reused, the encodings are those of the messages as they
	// are now.
	for i, m := range req.Messages {
		b, _ := json.Marshal(m)
		if encs[i] != string(b) {
			t.Fatalf("encoding of message %d is %s, want %s", i, encs[i], b)
		}
	}
	return encs
}

func conversation(steps int) []Message {
	msgs := []Message{{Role: RoleUser, Text: "go"}}
	for i := range steps {
		id := fmt.Sprint("c", i)
		msgs = append(msgs,
			Message{Role: RoleAssistant, Text: fmt.Sprint("step ", i), ToolCalls: []ToolCall{{ID: id, Name: "read", Arguments: json.RawMessage(`{"n":1}`)}}},
			Message{Role: RoleTool, ToolCallID: id, Text: fmt.Sprint("result ", i)})
	}
	return msgs
}

// A request that repeats the last one and adds a step encodes only the new
// messages; anything changed, however it was changed, is encoded again.
func TestEncodingsEncodeOnlyWhatIsNew(t *testing.T) {
	t.Parallel()
	tools := []ToolSpec{{Name: "read", Schema: json.RawMessage(`{"type":"object"}`)}}
	png := Image{MediaType: "image/png", Data: []byte("\x89PNG one")}
	tests := []struct {
		name      string
		first     Request
		next      func(Request) Request
		wantMsgs  []int
		wantHeads int
	}{
		{"a step added", Request{Model: "m", Messages: conversation(3), Tools: tools},
			func(r Request) Request { r.Messages = conversation(4); return r }, []int{7, 8}, 1},
		{"the same request again (a retry)", Request{Model: "m", Messages: conversation(3), Tools: tools},
			func(r Request) Request { return r }, nil, 1},
		{"a synthetic interrupted result replaced", Request{Model: "m", Messages: append(conversation(2), Message{Role: RoleTool, ToolCallID: "c1", Text: "interrupted", IsError: true})},
			func(r Request) Request {
				r.Messages = slices.Clone(r.Messages)
				r.Messages[len(r.Messages)-1] = Message{Role: RoleTool, ToolCallID: "c1", Text: "interrupted", IsError: false}
				return r
			}, []int{5}, 1},
		{"arguments changed in place", Request{Model: "m", Messages: conversation(3)},
			func(r Request) Request { r.Messages[3].ToolCalls[0].Arguments[5] = '2'; return r }, []int{3}, 1},
		{"an image changed in place", Request{Model: "m", Messages: []Message{{Role: RoleUser, Text: "look", Images: []Image{png}}}},
			func(r Request) Request { r.Messages[0].Images[0].Data[6] = 't'; return r }, []int{0}, 1},
		{"the first messages dropped", Request{Model: "m", Messages: conversation(3)},
			func(r Request) Request { r.Messages = r.Messages[2:]; return r }, []int{0, 1, 2, 3, 4}, 1},
		{"a schema changed in place", Request{Model: "m", Messages: conversation(1), Tools: []ToolSpec{{Name: "read", Schema: json.RawMessage(`{"type":"object"}`)}}},
			func(r Request) Request { r.Tools[0].Schema[2] = 'T'; return r }, nil, 2},
		{"another model", Request{Model: "m", Messages: conversation(1)},
			func(r Request) Request { r.Model = "n"; return r }, nil, 2},
		{"another system prompt", Request{Model: "m", System: "a", Messages: conversation(1)},
			func(r Request) Request { r.System = "b"; return r }, nil, 2},
		{"another max_tokens", Request{Model: "m", Messages: conversation(1)},
			func(r Request) Request { r.MaxTokens = 10; return r }, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c counted
			c.encode(t, tt.first)
			if len(c.msgs) != len(tt.first.Messages) || c.heads != 1 {
				t.Fatalf("the first request encoded messages %v and %d heads", c.msgs, c.heads)
			}
			c.encode(t, tt.next(tt.first))
			if !slices.Equal(c.msgs, tt.wantMsgs) || c.heads != tt.wantHeads {
				t.Errorf("encoded messages %v and %d heads in all, want %v and %d", c.msgs, c.heads, tt.wantMsgs, tt.wantHeads)
			}
		})
	}
}

// An error keeps nothing of the request, so a request that fails does not
// change what the next one reuses, and the encodings held are those of one
// request, the last that succeeded.
func TestEncodingsErrorsAndMemory(t *testing.T) {
	t.Parallel()
	var c counted
	c.encode(t, Request{Model: "m", Messages: conversation(500)})
	bad := errors.New("bad message")
	_, _, err := c.c.Encode(Request{Model: "m", Messages: conversation(501)},
		func(Request) (string, error) { return "", nil },
		func(i int, m Message) (string, error) { return "", bad })
	if !errors.Is(err, bad) {
		t.Fatalf("err = %v, want the encoder's", err)
	}
	_, _, err = c.c.Encode(Request{Model: "n", Messages: conversation(500)},
		func(Request) (string, error) { return "", bad },
		func(i int, m Message) (string, error) { return "", nil })
	if !errors.Is(err, bad) {
		t.Fatalf("err = %v, want the head encoder's", err)
	}
	c.encode(t, Request{Model: "m", Messages: conversation(501)})
	if len(c.msgs) != 2 {
		t.Errorf("after failed requests, encoded %v, want only the two new messages", c.msgs)
	}
	c.encode(t, Request{Model: "m", Messages: conversation(1)})
	if n := len(c.c.msgs); n != 3 {
		t.Errorf("holds the encodings of %d messages after a request of 3", n)
	}
}

// Calls for different conversations at once each get their own encodings.
func TestEncodingsConcurrent(t *testing.T) {
	t.Parallel()
	var c Encodings[string, string]
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				msgs := conversation(i%7 + g)
				_, encs, err := c.Encode(Request{Model: fmt.Sprint("m", g), Messages: msgs},
					func(r Request) (string, error) { return r.Model, nil },
					func(_ int, m Message) (string, error) { return m.Text + "|" + m.ToolCallID, nil })
				if err != nil {
					t.Error(err)
					return
				}
				for j, m := range msgs {
					if encs[j] != m.Text+"|"+m.ToolCallID {
						t.Errorf("goroutine %d call %d: message %d encoded as %q", g, i, j, encs[j])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
