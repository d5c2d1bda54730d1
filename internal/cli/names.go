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
// them, says which was likely meant. what names the kind of name in English
// and in Chinese ("scenario", "场景").
func unknownName(lang string, what text.Text, name string, valid []string) error {
	en := fmt.Sprintf("unknown %s %q; ", what.EN, name)
	zh := fmt.Sprintf("未知的%s %q；", what.ZH, name)
	if s := suggest(name, valid); len(s) > 0 {
		en += "did you mean " + strings.Join(s, " or ") + "? "
		zh += "是不是 " + strings.Join(s, " 或 ") + "？"
	}
	en += "valid: " + strings.Join(valid, ", ")
	zh += "可选：" + strings.Join(valid, ", ")
	return errUsage{errors.New(text.Text{EN: en, ZH: zh}.In(lang))}
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

// unknownCommand is the error for a command lockstep does not have.
func unknownCommand(name string) error {
	if s := suggest(name, commands); len(s) > 0 {
		return errUsage{fmt.Errorf("unknown command %q; did you mean %s? valid: %s", name, strings.Join(s, " or "), strings.Join(commands, ", "))}
	}
	return errUsage{fmt.Errorf("unknown command %q; valid: %s", name, strings.Join(commands, ", "))}
}

// unknownSubcommand is the error for a subcommand c does not have: an
// unknown command of lockstep's, an unknown shell of completion's.
func unknownSubcommand(c *cobra.Command, name string) error {
	if !c.HasParent() {
		return unknownCommand(name)
	}
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	what := "command of " + c.Name()
	if c.Name() == "completion" {
		what = "shell"
	}
	if s := suggest(name, names); len(s) > 0 {
		return errUsage{fmt.Errorf("unknown %s %q; did you mean %s? valid: %s", what, name, strings.Join(s, " or "), strings.Join(names, ", "))}
	}
	return errUsage{fmt.Errorf("unknown %s %q; valid: %s", what, name, strings.Join(names, ", "))}
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
// the catalogue's order; an empty list is all of them.
func pickImpls(list, lang string) ([]lockimpl.Info, error) {
	if list == "" {
		return lockimpl.All(), nil
	}
	names := strings.Split(list, ",")
	for _, n := range names {
		if _, err := lockimpl.Lookup(n); err != nil {
			return nil, unknownName(lang, kindImpl, n, lockimpl.Names())
		}
	}
	var out []lockimpl.Info
	for _, in := range lockimpl.All() {
		if slices.Contains(names, in.Name) {
			out = append(out, in)
		}
	}
	return out, nil
}
