package store

import (
	"context"
	"strings"
)

// WriterDSN exposes the writer's connection settings to the benchmarks' raw
// SQLite control, so that the control runs on exactly the store's settings.
var WriterDSN = writerDSN

// ListRunsPlan is EXPLAIN QUERY PLAN of ListRuns' statement for f, one line
// per step, for the tests that hold the list to its indexes.
func (s *Store) ListRunsPlan(f RunFilter) (string, error) {
	short, err := s.shortTerms(context.Background(), f.Text)
	if err != nil {
		return "", err
	}
	q, args := listRunsQuery(f, 0, short)
	rows, err := s.r.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return "", err
		}
		lines = append(lines, detail)
	}
	return strings.Join(lines, "\n"), rows.Err()
}
