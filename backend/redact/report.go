package redact

import (
	"cmp"
	"slices"
)

// Finding says how many secrets of one kind were replaced at one place.
// It never holds a value.
type Finding struct {
	Kind  string `json:"kind"`
	Where string `json:"where"`
	Count int    `json:"count"`
}

// Report lists what was redacted so far: how many of each kind and where
// (the labels given to String, Bytes and JSON), never the values. It is
// sorted by where, comparing runs of digits as numbers so that "event 9"
// comes before "event 10", then by kind; the same calls give the same
// report whatever their order.
func (r *Redactor) Report() []Finding {
	r.mu.Lock()
	out := make([]Finding, 0, len(r.counts))
	for k, n := range r.counts {
		out = append(out, Finding{Kind: k.kind, Where: k.where, Count: n})
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b Finding) int {
		if c := naturalCompare(a.Where, b.Where); c != 0 {
			return c
		}
		return cmp.Compare(a.Kind, b.Kind)
	})
	return out
}

// naturalCompare compares a and b bytewise except that runs of ASCII digits
// compare by value; equal values fall back to the plain comparison so that
// the order is total ("event 07" and "event 7" are still distinct).
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ei, ej := i, j
			for ei < len(a) && isDigit(a[ei]) {
				ei++
			}
			for ej < len(b) && isDigit(b[ej]) {
				ej++
			}
			// Compare by value without parsing (the run may overflow an
			// int): leading zeros off, then length, then digits.
			na, nb := trimZeros(a[i:ei]), trimZeros(b[j:ej])
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
			i, j = ei, ej
			continue
		}
		if c := cmp.Compare(a[i], b[j]); c != 0 {
			return c
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
