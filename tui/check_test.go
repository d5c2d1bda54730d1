package tui

import "testing"

// An unknown language is said as every unknown name is: the valid ones,
// and the one likely meant when it is a near miss.
func TestCheckSaysWhichLanguageWasMeant(t *testing.T) {
	for lang, want := range map[string]string{
		"fr": `unknown language "fr"; valid: en, zh`,
		"ZH": `unknown language "ZH"; did you mean zh? valid: en, zh`,
	} {
		if err := (Options{Lang: lang}).Check(); err == nil || err.Error() != want {
			t.Errorf("Options{Lang: %q}.Check(): %v, want %q", lang, err, want)
		}
	}
}
