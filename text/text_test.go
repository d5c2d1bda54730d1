package text_test

import (
	"slices"
	"testing"

	"github.com/lockstep-sim/lockstep/text"
)

func TestIn(t *testing.T) {
	x := text.New("lock", "锁")
	for lang, want := range map[string]string{"en": "lock", "zh": "锁", "": "lock", "fr": "lock"} {
		if got := x.In(lang); got != want {
			t.Errorf("In(%q) = %q, want %q", lang, got, want)
		}
	}
}

func TestNewf(t *testing.T) {
	got := text.Newf("%d more", "还有 %d 个", 3)
	if want := (text.Text{EN: "3 more", ZH: "还有 3 个"}); got != want {
		t.Errorf("Newf = %+v, want %+v", got, want)
	}
}

// entry is shaped like what the completeness tests walk: Texts in fields,
// slices, maps, pointers and interfaces, and some in unexported fields,
// which are not user-facing.
type entry struct {
	Name   string
	Title  text.Text
	Lines  []text.Text
	ByKey  map[string]text.Text
	Next   *entry
	Any    any
	hidden text.Text
}

func TestMissing(t *testing.T) {
	good := text.New("ok", "好")
	whole := entry{Title: good, Lines: []text.Text{good, {}}, ByKey: map[string]text.Text{"a": good},
		Any: good, hidden: text.Text{EN: "not shown"}}
	whole.Next = &whole // a cycle ends
	if got := text.Missing("e", whole); len(got) != 0 {
		t.Errorf("Missing(complete) = %q, want none", got)
	}

	broken := entry{
		Title: text.Text{EN: "no Chinese"},
		Lines: []text.Text{good, {ZH: "没有英文"}},
		ByKey: map[string]text.Text{"b": {EN: "b"}, "a": {EN: "a"}},
		Next:  &entry{Title: text.Text{EN: "deep"}},
		Any:   []any{text.Text{EN: "boxed"}},
	}
	want := []string{
		"e.Title: no Chinese",
		"e.Lines[1]: no English",
		`e.ByKey["a"]: no Chinese`,
		`e.ByKey["b"]: no Chinese`,
		"e.Next.Title: no Chinese",
		"e.Any[0]: no Chinese",
	}
	if got := text.Missing("e", broken); !slices.Equal(got, want) {
		t.Errorf("Missing(broken) =\n%q\nwant\n%q", got, want)
	}
	if got := text.Missing("t", text.Text{ZH: "只有中文"}); !slices.Equal(got, []string{"t: no English"}) {
		t.Errorf("Missing(Text) = %q", got)
	}
}
