package scenarios

import (
	"context"
	"testing"

	"github.com/lockstep-sim/lockstep/lockimpl"
)

// Lessons whose searches are the same share one: oversell says its stock,
// 100, and short-section leaves it to the world's default, which is 100.
func TestAgreeSharesTheSameSearch(t *testing.T) {
	in, err := lockimpl.Lookup("uuid-lua")
	if err != nil {
		t.Fatal(err)
	}
	lessons := lessonsByID(t, "oversell", "short-section")
	if a, b := lessons[0].Options(in.Name), lessons[1].Options(in.Name); a.Stock == b.Stock {
		t.Fatalf("oversell and short-section both give stock %d: the test needs one that says it and one that does not", a.Stock)
	}
	searches := 0
	cells, err := Agree(context.Background(), lessons, []lockimpl.Info{in}, func(done, total int) { searches = total })
	if err != nil {
		t.Fatal(err)
	}
	if searches != 1 {
		t.Errorf("Agree made %d searches for two lessons whose searches are the same, want 1", searches)
	}
	if len(cells) != 2 || cells[0].States != cells[1].States || cells[0].Depth != cells[1].Depth {
		t.Errorf("the two cells differ: %+v", cells)
	}
}
