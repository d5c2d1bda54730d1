package main

import (
	"strings"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// namesWith are the catalogue's implementations whose names begin with
// prefix, in its order, space-separated, as completion offers them: a
// test's list of them would fail on a lock added to the catalogue, which
// go generate ./... is all it should take (#39, item 3).
func namesWith(prefix string) string {
	var names []string
	for _, n := range lockimpl.Names() {
		if strings.HasPrefix(n, prefix) {
			names = append(names, n)
		}
	}
	return strings.Join(names, " ")
}

// refreshTable is the command that refreshes docs/explore.md's agreement
// table, whose rows (tableRows) are was and should be now: go generate
// ./... where it lacks cells (a new lesson or implementation: only those
// are searched, and the rest kept), the whole table searched afresh where
// a cell it has changed (the engine, a lock or a search did), which go
// generate leaves alone as a reviewed result.
func refreshTable(was, now map[string]string) string {
	changed := false
	for id, marks := range was {
		old := strings.Fields(marks)
		got := strings.Fields(now[id])
		if len(old) == len(got) && marks != now[id] {
			changed = true
		}
	}
	if len(was) < len(now) || !changed {
		return "run go generate ./..., which searches the cells the table lacks; then explain every new disagreement under \"Why they disagree\"."
	}
	return "cells it has changed, which go generate ./... keeps: LOCKSTEP_WRITE_EXPLORE_TABLE=1 go test -count=1 -timeout 60m -run TestExploreTableIsFresh . searches the whole table afresh (about 330 s); then explain every new disagreement under \"Why they disagree\"."
}
