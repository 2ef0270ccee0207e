package event

// Outside returns data with f applied to each text in it that came from
// outside Steward: what a model answered or a provider said in an error,
// what a tool or a web page returned, why a run failed. The engine passes
// its payloads through Outside with the redactor before they become events,
// so that a key a server echoes back is never written (issue 14).
//
// Left as they are: a tool call's arguments (ToolCalls, Next.Arguments),
// which are what the call runs with, and what a person wrote (instructions,
// steers, answers). Other payloads are returned unchanged. This list is the
// one place that says which fields are outside text.
func Outside(data any, f func(string) string) any {
	switch d := data.(type) {
	case NodeFinishedData:
		if o, e, t := f(d.Output), f(d.Error), f(d.Text); o != d.Output || e != d.Error || t != d.Text {
			d.Output, d.Error, d.Text = o, e, t
			return d
		}
	case LLMDeltaData:
		if t := f(d.Text); t != d.Text {
			d.Text = t
			return d
		}
	case LLMAttemptData:
		if e := f(d.Error); e != d.Error {
			d.Error = e
			return d
		}
	case RunStatusData:
		if r, e := f(d.Reason), f(d.Error); r != d.Reason || e != d.Error {
			d.Reason, d.Error = r, e
			return d
		}
	case ArtifactCreatedData:
		if s := f(d.Description); s != d.Description {
			d.Description = s
			return d
		}
	case MCPServerData:
		if r, e := f(d.Reason), f(d.Stderr); r != d.Reason || e != d.Stderr {
			d.Reason, d.Stderr = r, e
			return d
		}
	case ToolProgressData:
		if m := f(d.Message); m != d.Message {
			d.Message = m
			return d
		}
	case ReplayDivergedData:
		if r, g := f(d.Recorded), f(d.Got); r != d.Recorded || g != d.Got {
			d.Recorded, d.Got = r, g
			return d
		}
	}
	return data
}
