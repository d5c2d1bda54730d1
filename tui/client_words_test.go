package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/lockstep-sim/lockstep/scenarios/sim/invariant"
	"github.com/lockstep-sim/lockstep/scenarios/sim/trace"
)

// engineConsts are the values of the constants of type typ that the file
// of package sim declares: the engine's own names, read from its source so
// that a new one is not missed.
func engineConsts(t *testing.T, file, typ string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../scenarios/sim/"+file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != typ {
				continue
			}
			for _, e := range v.Values {
				if lit, ok := e.(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					out = append(out, s)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no constants of type %s in %s", typ, file)
	}
	return out
}

// Issue #37 item 13: the client panel says each state the engine has in
// words, in English and in Chinese, never its identifier. Before, a client
// that gave up read "B gave-up" (in the sandbox, and in the player), and
// the Chinese hint said "再走 8 步可破坏 ownership".
func TestClientStatesAreWords(t *testing.T) {
	st := NewStyles()
	for _, b := range engineConsts(t, "trace/trace.go", "Belief") {
		tr := &trace.Trace{Events: []trace.Event{{Snap: trace.Snapshot{Clients: []trace.ClientState{{Name: "B", Belief: trace.Belief(b)}}}}}}
		for _, lang := range []string{"en", "zh"} {
			line := clientLines(st, lang, tr, 0)[1]
			word, ok := strings.CutPrefix(line, "B ")
			switch {
			case !ok || word == "":
				t.Errorf("%s %s: %q", b, lang, line)
			case strings.ContainsAny(word, "-_"):
				t.Errorf("%s in %s reads %q: an identifier, not words", b, lang, line)
			case lang == "zh" && strings.ContainsFunc(word, func(r rune) bool { return r < unicode.MaxASCII && unicode.IsLetter(r) }):
				t.Errorf("%s in Chinese reads %q: English", b, line)
			}
		}
	}
	// The roles the engine gives its servers, as the panel shows them.
	for _, role := range []string{"primary", "replica", "primary (down)", "cluster master", "node"} {
		if zh := roleText(role, "zh"); strings.ContainsFunc(zh, func(r rune) bool { return r < unicode.MaxASCII && unicode.IsLetter(r) }) {
			t.Errorf("the role %q in Chinese reads %q", role, zh)
		}
	}

	// The hint names the invariant it breaks as the panel does: 归属 in
	// Chinese, not ownership.
	hm := sandbox(t, "uuid-get-del", 80, 24)
	hm = choose(t, hm, "A", "A")
	hm, cmd := press(hm, "s")
	if cmd == nil {
		t.Fatal("s started no search")
	}
	hm = send(hm, cmd())
	if hm.sandbox.hintMove == "" {
		t.Fatalf("no hint: %q", hm.sandbox.hint.EN)
	}
	for _, id := range invariant.IDs() {
		if zh := hm.sandbox.hint.ZH; strings.Contains(zh, id) {
			t.Errorf("the Chinese hint names the invariant %s by its id: %q", id, zh)
		}
	}

	// In the sandbox: B, refused once, gives up (one attempt each).
	m := sandbox(t, "set-nx-ex", 80, 24)
	m = choose(t, m, "A", "A", "B", "B")
	for lang, want := range map[string]string{"en": "B gave up", "zh": "B 已放弃"} {
		m.lang = lang
		v := m.View()
		if !strings.Contains(v, want) || strings.Contains(v, string(trace.BeliefGaveUp)) {
			t.Errorf("%s: the sandbox does not say %q:\n%s", lang, want, v)
		}
	}
}
