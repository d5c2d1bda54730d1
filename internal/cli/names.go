package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	suggestpkg "github.com/lockstep-sim/lockstep/internal/suggest"
	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

// unknownName is the error for a name that is none of valid, in lang: it
// lists the valid names and, when the name is a near miss of one or two of
// them, says which was likely meant (suggest.Unknown). what names the kind
// of name in English and in Chinese ("scenario", "场景").
func unknownName(lang string, what text.Text, name string, valid []string) error {
	return errUsage{errors.New(suggestpkg.Unknown(what, name, valid).In(lang))}
}

// The kinds of names a command line looks up.
var (
	kindScenario = text.New("scenario", "场景")
	kindImpl     = text.New("implementation", "锁实现")
	kindFormat   = text.New("format", "格式")
	kindLanguage = text.New("language", "语言")
	kindFault    = text.New("fault", "故障")
	kindCommand  = text.New("command", "命令")
)

// suggest is the names in valid that name is most likely a mistyping of
// (internal/suggest).
func suggest(name string, valid []string) []string { return suggestpkg.Names(name, valid) }

// unknownCommand is the error for a command root's tree does not have.
func unknownCommand(root *cobra.Command, name string) error {
	return unknownName("en", kindCommand, name, commandNames(root))
}

// unknownSubcommand is the error for a subcommand c does not have: an
// unknown command of lockstep's, an unknown shell of completion's.
func unknownSubcommand(c *cobra.Command, name string) error {
	if !c.HasParent() {
		return unknownCommand(c, name)
	}
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	what := text.Newf("command of %s", "%s 的命令", c.Name())
	if c.Name() == "completion" {
		what = text.New("shell", "shell")
	}
	return unknownName("en", what, name, names)
}

// checkLang makes sure lang is one lockstep speaks.
func checkLang(lang string) error {
	if lang != "en" && lang != "zh" {
		return unknownName("en", kindLanguage, lang, []string{"en", "zh"})
	}
	return nil
}

// pickLessons keeps the lessons whose ids are in list (comma separated, in
// the catalogue's order); an empty list keeps them all.
func pickLessons(all []scenarios.Scenario, list, lang string) ([]scenarios.Scenario, error) {
	if list == "" {
		return all, nil
	}
	var ids []string
	for _, s := range all {
		ids = append(ids, s.ID)
	}
	var out []scenarios.Scenario
	for id := range strings.SplitSeq(list, ",") {
		i := slices.Index(ids, id)
		if i < 0 {
			return nil, unknownName(lang, kindScenario, id, ids)
		}
		if !slices.ContainsFunc(out, func(s scenarios.Scenario) bool { return s.ID == id }) {
			out = append(out, all[i])
		}
	}
	slices.SortStableFunc(out, func(a, b scenarios.Scenario) int { return slices.Index(ids, a.ID) - slices.Index(ids, b.ID) })
	return out, nil
}

// pickImpls is the implementations named in list (comma separated), in
// the catalogue's order, then the locks of one's own (a .py file) in the
// list's; an empty list is all of the catalogue.
func pickImpls(list, lang string) ([]lockimpl.Info, error) {
	if list == "" {
		return lockimpl.All(), nil
	}
	names := strings.Split(list, ",")
	var own []lockimpl.Info
	for _, n := range names {
		in, err := lookupImpl(lang, n, lockimpl.Lookup)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(lockimpl.KnownNames(), n) && !slices.ContainsFunc(own, func(o lockimpl.Info) bool { return o.Name == n }) {
			own = append(own, in)
		}
	}
	var out []lockimpl.Info
	for _, in := range slices.Concat(lockimpl.All(), lockimpl.Others()) {
		if slices.Contains(names, in.Name) {
			out = append(out, in)
		}
	}
	return append(out, own...), nil
}

// lookupImpl finds the implementation name with lookup: the catalogue's, a
// lock in another language, or a lock of one's own by its file, whose
// error (no such file) is its own; an unknown name's error lists the
// known ones. A lock in another language this machine cannot run is an
// error that says what to install, before anything runs.
func lookupImpl(lang, name string, lookup func(string) (lockimpl.Info, error)) (lockimpl.Info, error) {
	in, err := lookup(name)
	if err != nil {
		if lockimpl.IsOwnFile(name) {
			return lockimpl.Info{}, err
		}
		return lockimpl.Info{}, unknownName(lang, kindImpl, name, lockimpl.KnownNames())
	}
	if in.Needs != nil {
		if err := in.Needs(); err != nil {
			return lockimpl.Info{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	return in, nil
}
