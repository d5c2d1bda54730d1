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
