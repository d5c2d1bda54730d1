package scenarios

import (
	"strings"
	"testing"
)

// An unknown id lists the valid ones and, when it is a near miss of one,
// says which was likely meant, as the command line says it.
func TestLookupSuggests(t *testing.T) {
	valid := "valid: " + strings.Join(IDs(), ", ")
	for id, want := range map[string]string{
		"get-then-dle": `unknown scenario "get-then-dle"; did you mean get-then-del? ` + valid,
		"nope":         `unknown scenario "nope"; ` + valid,
	} {
		if _, err := Lookup(id); err == nil || err.Error() != want {
			t.Errorf("Lookup(%q) = %v, want %q", id, err, want)
		}
	}
}
