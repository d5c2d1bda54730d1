package suggest

import (
	"testing"

	"github.com/lockstep-sim/lockstep/text"
)

// Unknown says the one likely meant when there is one, and lists the valid
// names either way, in both languages.
func TestUnknown(t *testing.T) {
	what, valid := text.New("format", "格式"), []string{"text", "md", "mermaid"}
	for _, tc := range []struct {
		name   string
		en, zh string
	}{
		{"mermiad", `unknown format "mermiad"; did you mean mermaid? valid: text, md, mermaid`, `未知的格式 "mermiad"；是不是 mermaid？可选：text, md, mermaid`},
		{"pdf", `unknown format "pdf"; valid: text, md, mermaid`, `未知的格式 "pdf"；可选：text, md, mermaid`},
		{"mx", `unknown format "mx"; did you mean md? valid: text, md, mermaid`, `未知的格式 "mx"；是不是 md？可选：text, md, mermaid`},
	} {
		if got := Unknown(what, tc.name, valid); got.EN != tc.en || got.ZH != tc.zh {
			t.Errorf("Unknown(%q) = %q / %q, want %q / %q", tc.name, got.EN, got.ZH, tc.en, tc.zh)
		}
	}
}
