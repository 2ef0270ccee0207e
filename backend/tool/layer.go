package tool

// Layer returns a registry for one run: it offers r's tools and sources,
// and the sources added to it, which only it has (the MCP servers of the
// run's workspace, package mcp's Project). r's sources win: a source added
// to the layer may not overlap one of r's, and one r gains later hides the
// layer's of the same prefix, so what a workspace brings can never shadow
// what the person configured. Changes of r's sources reach the layer at
// once. A layer takes sources and run enders only (Register and SetTimeout
// refuse), and its EndRun ends its own enders, then r's.
func (r *Registry) Layer() *Registry {
	return &Registry{tools: r.tools, Timeout: r.Timeout, MaxOutput: r.MaxOutput, timeouts: r.timeouts, parent: r}
}
