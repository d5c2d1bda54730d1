// Package suggest guesses which name a mistyped one was meant to be, for
// the "did you mean" of an error, and says so: Unknown is the one message
// for a name that is none of the valid ones, wherever it is looked up.
package suggest

import (
	"fmt"
	"strings"

	"github.com/lockstep-sim/lockstep/text"
)

// Unknown is the message for name, a what ("scenario", "场景") that is none
// of valid, in English and Chinese: it lists valid and, when name is a near
// miss of some of them (Names), says which was likely meant:
//
//	unknown scenario "get-then-dle"; did you mean get-then-del? valid: oversell, …
//	未知的场景 "get-then-dle"；是不是 get-then-del？可选：oversell, …
func Unknown(what text.Text, name string, valid []string) text.Text {
	en := fmt.Sprintf("unknown %s %q; ", what.EN, name)
	zh := fmt.Sprintf("未知的%s %q；", what.ZH, name)
	if s := Names(name, valid); len(s) > 0 {
		en += "did you mean " + strings.Join(s, " or ") + "? "
		zh += "是不是 " + strings.Join(s, " 或 ") + "？"
	}
	en += "valid: " + strings.Join(valid, ", ")
	zh += "可选：" + strings.Join(valid, ", ")
	return text.Text{EN: en, ZH: zh}
}

// Names is the names in valid that name is most likely a mistyping of:
// those at the smallest edit distance (a swap of two neighbours counts as
// one edit), if it is small for the name's length, or else the one name
// that starts with it. Case is ignored.
func Names(name string, valid []string) []string {
	if name == "" {
		return nil
	}
	lower := strings.ToLower(name)
	limit := 1
	switch n := len([]rune(name)); {
	case n >= 10:
		limit = 3
	case n >= 5:
		limit = 2
	}
	best := limit + 1
	var out []string
	for _, v := range valid {
		switch d := editDistance(lower, strings.ToLower(v)); {
		case d > limit:
		case d < best:
			best, out = d, []string{v}
		case d == best:
			out = append(out, v)
		}
	}
	if len(out) > 3 {
		out = nil // a guess among many is no help
	}
	if len(out) == 0 && len(name) >= 3 {
		for _, v := range valid {
			if strings.HasPrefix(strings.ToLower(v), lower) {
				out = append(out, v)
			}
		}
		if len(out) != 1 {
			out = nil
		}
	}
	return out
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of two neighbouring
// characters, each one edit.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
