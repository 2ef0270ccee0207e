package api

import (
	"net/http"
	"strconv"
	"time"

	"steward/backend/store"
)

// The query parameters of GET /api/v1/usage. Days are UTC calendar days,
// as the report's day grouping is.
var (
	qUsageGroup = queryParam{name: "group", doc: "what to add up by; run when absent", enum: names(store.UsageGroups)}
	qUsageFrom  = queryParam{name: "from", doc: "only runs started on this UTC day (YYYY-MM-DD) or later"}
	qUsageTo    = queryParam{name: "to", doc: "only runs started on this UTC day (YYYY-MM-DD) or earlier"}
)

// UsageReport is the tokens and cost of the runs of a period, one row per
// run, agent, model or day.
type UsageReport struct {
	Group string     `json:"group"`
	From  string     `json:"from,omitempty"`
	To    string     `json:"to,omitempty"`
	Rows  []UsageRow `json:"rows"`
	// Total adds up every row.
	Total Usage `json:"total"`
	Runs  int   `json:"runs"`
}

// UsageRow is the usage of one run, agent, model or day. Key is the run's
// id, the agent's name, provider/model or the day (YYYY-MM-DD); Label what
// to show (for a run, its agent's name).
type UsageRow struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Runs  int    `json:"runs"`
	// First is when the row's first run started (unix ms).
	First int64 `json:"first"`
	Steps int64 `json:"steps"`
	Usage Usage `json:"usage"`
}

func (s *Server) usage(w http.ResponseWriter, r *http.Request) error {
	group, err := qUsageGroup.value(r)
	if err != nil {
		return err
	}
	if group == "" {
		group = string(store.UsageByRun)
	}
	from, err := dayParam(qUsageFrom, r)
	if err != nil {
		return err
	}
	to, err := dayParam(qUsageTo, r)
	if err != nil {
		return err
	}
	f := store.UsageFilter{Group: store.UsageGroup(group)}
	if !from.IsZero() {
		f.From = from.UnixMilli()
	}
	if !to.IsZero() {
		if !from.IsZero() && to.Before(from) {
			return errorf(http.StatusBadRequest, CodeInvalid, "to "+qUsageTo.get(r)+" is before from "+qUsageFrom.get(r))
		}
		f.To = to.AddDate(0, 0, 1).UnixMilli() // the whole of the last day
	}
	rows, err := s.cfg.Store.Usage(r.Context(), f)
	if err != nil {
		return err
	}
	out := UsageReport{Group: group, From: qUsageFrom.get(r), To: qUsageTo.get(r), Rows: make([]UsageRow, len(rows))}
	for i, u := range rows {
		us := Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedTokens: u.CachedTokens, CostUSD: u.CostUSD}
		out.Rows[i] = UsageRow{Key: u.Key, Label: u.Label, Runs: u.Runs, First: u.First, Steps: u.Steps, Usage: us}
		out.Runs += u.Runs
		out.Total.InputTokens += us.InputTokens
		out.Total.OutputTokens += us.OutputTokens
		out.Total.CachedTokens += us.CachedTokens
		out.Total.CostUSD += us.CostUSD
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// dayParam reads a YYYY-MM-DD parameter as the start of that UTC day; the
// zero time when absent.
func dayParam(p queryParam, r *http.Request) (time.Time, error) {
	v := p.get(r)
	if v == "" {
		return time.Time{}, nil
	}
	d, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, errorf(http.StatusBadRequest, CodeInvalid, p.name+" "+strconv.Quote(v)+" is not a day: give it as YYYY-MM-DD, for example 2026-03-01")
	}
	return d, nil
}
