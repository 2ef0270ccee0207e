package otlp

import "steward/backend/event"

// nodeEvent records the events that annotate a node as span events.
func (b *builder) nodeEvent(e event.Event) error {
	n := b.on(e.NodeID)
	switch e.Type {
	case event.LLMAttempt:
		d, err := decode[event.LLMAttemptData](e)
		if err != nil {
			return err
		}
		n.event(e.TS, "steward.llm.retry", intAttr("steward.attempt", int64(d.Attempt)), strAttr("error.type", orOther(d.Kind)),
			strAttr("steward.error", d.Error), intAttr("steward.retry_in_ms", d.RetryInMS))
	case event.PolicyDecided:
		d, err := decode[event.PolicyDecidedData](e)
		if err != nil {
			return err
		}
		n.event(e.TS, "steward.policy.decided", strAttr("steward.policy.effect", d.Effect), strAttr("steward.policy.reason", d.Reason))
	case event.ApprovalRequested:
		d, err := decode[event.ApprovalRequestedData](e)
		if err != nil {
			return err
		}
		kind := d.Kind
		if kind == "" {
			kind = event.InteractionApproval
		}
		kv := []keyValue{strAttr("steward.interaction.id", d.InteractionID), strAttr("steward.interaction.kind", kind)}
		kv = appendStr(kv, "steward.tool.risk", d.Risk)
		kv = appendStr(kv, "steward.approval.reason", d.Reason)
		kv = appendStr(kv, "steward.approval.default_decision", d.DefaultDecision)
		if d.GroupSize > 1 {
			kv = append(kv, intAttr("steward.approval.group_size", int64(d.GroupSize)))
		}
		if d.ExpiresAt > 0 {
			kv = append(kv, intAttr("steward.approval.expires_at_ms", d.ExpiresAt))
		}
		if q := d.Question; q != nil && q.Server != "" {
			mode := "form"
			if q.URL != "" {
				mode = "url"
			}
			kv = appendStr(kv, "steward.elicitation.server", q.Server)
			kv = appendStr(kv, "steward.elicitation.mode", mode)
		}
		if b.o.IncludeContent && d.Question != nil {
			kv = appendStr(kv, "steward.question", d.Question.Text)
		}
		n.event(e.TS, "steward.approval.requested", kv...)
	case event.ApprovalDecided:
		d, err := decode[event.ApprovalDecidedData](e)
		if err != nil {
			return err
		}
		// Who decided and what, never the edited arguments themselves:
		// that the person edited them is the fact worth tracing.
		kv := []keyValue{strAttr("steward.interaction.id", d.InteractionID), strAttr("steward.approval.decision", d.Decision),
			strAttr("steward.approval.source", d.Source)}
		kv = appendStr(kv, "steward.interaction.kind", d.Kind)
		kv = appendStr(kv, "steward.approval.scope", d.Scope)
		kv = appendStr(kv, "steward.approval.grant_id", d.GrantID)
		if len(d.Arguments) > 0 {
			kv = append(kv, boolAttr("steward.approval.edited", true))
		}
		if b.o.IncludeContent {
			kv = appendStr(kv, "steward.approval.feedback", d.Feedback)
			kv = appendStr(kv, "steward.answer.text", d.Text)
			if len(d.Choices) > 0 {
				kv = append(kv, strsAttr("steward.answer.choices", d.Choices))
			}
			kv = appendStr(kv, "steward.answer.content", string(d.Content))
		}
		n.event(e.TS, "steward.approval.decided", kv...)
	case event.ToolExecuting:
		n.event(e.TS, "steward.tool.executing")
	case event.FileChanged:
		d, err := decode[event.FileChangedData](e)
		if err != nil {
			return err
		}
		kv := []keyValue{strAttr("steward.file.path", d.Path), strAttr("steward.file.source", d.Source), intAttr("steward.file.size", d.Size)}
		switch {
		case d.After == "":
			kv = append(kv, boolAttr("steward.file.deleted", true))
		case d.Before == "" && !d.BeforeUnknown:
			kv = append(kv, boolAttr("steward.file.created", true))
		}
		n.event(e.TS, "steward.file.changed", kv...)
	case event.ArtifactCreated:
		d, err := decode[event.ArtifactCreatedData](e)
		if err != nil {
			return err
		}
		n.event(e.TS, "steward.artifact.created", strAttr("steward.artifact.name", d.Name), strAttr("steward.artifact.kind", d.Kind),
			strAttr("steward.artifact.mime", d.Mime), intAttr("steward.artifact.size", d.Size))
	case event.RunPlan:
		d, err := decode[event.RunPlanData](e)
		if err != nil {
			return err
		}
		kv := []keyValue{intAttr("steward.plan.steps", int64(len(d.Steps)))}
		if b.o.IncludeContent {
			titles := make([]string, len(d.Steps))
			for i, s := range d.Steps {
				titles[i] = "[" + string(s.Status) + "] " + s.Title
			}
			kv = append(kv, strsAttr("steward.plan", titles))
		}
		n.event(e.TS, "steward.plan.updated", kv...)
	case event.RunForked:
		d, err := decode[event.RunForkedData](e)
		if err != nil {
			return err
		}
		b.root.event(e.TS, "steward.run.forked", strAttr("steward.fork.run_id", d.Fork), strAttr("steward.fork.node_id", d.NodeID))
	case event.RunLimits:
		d, err := decode[event.RunLimitsData](e)
		if err != nil {
			return err
		}
		b.root.event(e.TS, "steward.run.limits", limitAttrs(d.Limits)...)
	case event.RunBreakpoints:
		d, err := decode[event.RunBreakpointsData](e)
		if err != nil {
			return err
		}
		b.root.event(e.TS, "steward.run.breakpoints", strsAttr("steward.break_before", d.BreakBefore))
	case event.MCPServer:
		d, err := decode[event.MCPServerData](e)
		if err != nil {
			return err
		}
		kv := []keyValue{strAttr("steward.mcp.server", d.Server), strAttr("steward.mcp.state", d.State)}
		kv = appendStr(kv, "steward.mcp.era", d.Era)
		kv = appendStr(kv, "steward.mcp.transport", d.Transport)
		kv = appendStr(kv, "steward.mcp.reason", d.Reason)
		if d.Attempt > 0 {
			kv = append(kv, intAttr("steward.attempt", int64(d.Attempt)))
		}
		if d.RetryInMS > 0 {
			kv = append(kv, intAttr("steward.retry_in_ms", d.RetryInMS))
		}
		if b.o.IncludeContent { // what the server printed is its content
			kv = appendStr(kv, "steward.mcp.stderr", d.Stderr)
		}
		n.event(e.TS, "steward.mcp.server", kv...)
	case event.ToolProgress:
		d, err := decode[event.ToolProgressData](e)
		if err != nil {
			return err
		}
		kv := []keyValue{doubleAttr("steward.progress", d.Progress)}
		if d.Total > 0 {
			kv = append(kv, doubleAttr("steward.progress.total", d.Total))
		}
		if d.Skipped > 0 {
			kv = append(kv, intAttr("steward.progress.skipped", int64(d.Skipped)))
		}
		if b.o.IncludeContent { // what the server says is its content
			kv = appendStr(kv, "steward.progress.message", d.Message)
		}
		n.event(e.TS, "steward.tool.progress", kv...)
	}
	// llm.delta is left out: the whole text is in node.finished. Types newer
	// than this exporter are left out too, so old Stewards read new logs.
	return nil
}
