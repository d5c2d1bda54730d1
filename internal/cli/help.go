package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/text"
)

// Help comes in English and in Chinese, by --lang (helpLang): every text
// of it is a text.Text, or a Chinese twin set beside cobra's English
// (command, inOverview, usagesZH). The English is as it was written, with
// the line breaks its writer chose; the Chinese is wrapped to helpWidth by
// its width (wrapWide), since it has no spaces to break at.

// helpWidth is the width of help, in columns.
const helpWidth = 80

// overviewHead and overviewFoot are the overview's first and last lines;
// between them each command's own (inOverview), lockstep's first (the
// terminal UI's), then the others' in their order (subcommands).
var (
	overviewHead = text.New("lockstep — Redis distributed locks, broken on purpose, step by step\n\nusage:\n",
		"lockstep — Redis 分布式锁：故意写错，一步一步看它怎么坏\n\n用法：\n")
	overviewFoot = text.New(`
flags, after the command: --lang en|zh (narration language) on every command
but lessons; --redis ADDR[,ADDR…] (real servers instead of embedded ones) with
--replica ADDR --disposable and --sentinel ADDR[,ADDR…] (Sentinel decides the
failover), or --cluster ADDR[,ADDR…] (a Redis Cluster), and --no-acl and
--time-scale D on play, check and the TUI.
`, "\n"+wrapText("选项写在命令之后：--lang en|zh（旁白的语言）除 lessons 外每个命令都有；"+
		"--redis ADDR[,ADDR…]（用真实服务器代替内嵌的服务器）可配合 --replica ADDR --disposable "+
		"和 --sentinel ADDR[,ADDR…]（由哨兵决定主从切换），或者用 --cluster ADDR[,ADDR…]"+
		"（一个 Redis Cluster）；还有 --no-acl 和 --time-scale D，用于 play、check 和终端界面。"))
)

// exitCodes ends every help text.
var exitCodes = text.New("exit codes: 0 ok, 1 unmet expectations (explore: a counterexample found),\n2 bad input or a run that could not complete, 3 (check on real servers) a cell\nuntrusted and none unmet\n",
	wrapText("退出码：0 正常；1 有结果不符合预期（explore：找到了反例）；2 输入有误，或运行未能完成；"+
		"3（在真实服务器上 check）有组合的结果不可信，且没有不符合预期的组合"))

// The headings of a command's help.
var (
	tuiFlagsHeading = text.New("flags of the terminal UI (lockstep [flags]):", "终端界面的选项（lockstep [flags]）：")
	usageHeading    = text.New("usage:", "用法：")
	examplesHeading = text.New("examples:", "示例：")
	commandsHeading = text.New("commands:", "命令：")
	flagsHeading    = text.New("flags:", "选项：")
)

// overview is what lockstep --help, lockstep help and lockstep without a
// terminal print, above the terminal UI's flags: every command of root's
// tree, with what it does.
func overview(root *cobra.Command, lang string) string {
	key := overviewKey
	if lang == "zh" {
		key += zhKey
	}
	var b strings.Builder
	b.WriteString(overviewHead.In(lang))
	for _, c := range append([]*cobra.Command{root}, subcommands(root)...) {
		b.WriteString(c.Annotations[key])
	}
	b.WriteString(overviewFoot.In(lang))
	return b.String()
}

// helpCmd is "lockstep help [COMMAND]": the overview, or a command's own
// help; an unknown command is an error, as anywhere else.
func helpCmd(root *cobra.Command) *cobra.Command {
	c := command("help [COMMAND]", text.New("this overview, or a command's own help", "本概览，或某个命令自己的帮助"),
		text.New("help prints the overview of lockstep; with a command, the command's own\nusage and flags.",
			"help 打印 lockstep 的概览；给出命令时，打印该命令自己的用法和选项。"), "  lockstep help play")
	inOverview(c, entry("help [COMMAND]", text.New("this text, or a command's own: its flags\n(also lockstep COMMAND --help)",
		"本文，或某个命令自己的帮助：它的选项（也可用 lockstep COMMAND --help）")))
	c.ValidArgsFunction = positional(commandCompletions)
	c.RunE = func(c *cobra.Command, args []string) error {
		target, rest, err := root.Find(args)
		if err != nil || len(rest) > 0 {
			return unknownCommand(root, strings.Join(args, " "))
		}
		target.InitDefaultHelpFlag()
		return target.Help()
	}
	return c
}

// writeHelp writes a command's help in lang: for lockstep itself the
// overview and the terminal UI's flags; for a command what it does, its
// usage line, examples and flags.
func writeHelp(w io.Writer, c *cobra.Command, lang string) {
	if !c.HasParent() {
		fmt.Fprintf(w, "%s\n%s\n%s\n%s", overview(c, lang), tuiFlagsHeading.In(lang), flagUsages(c, lang), exitCodes.In(lang))
		return
	}
	fmt.Fprintf(w, "%s\n\n%s\n  %s\n", strings.TrimSpace(about(c, lang)), usageHeading.In(lang), c.UseLine())
	if c.Example != "" {
		fmt.Fprintf(w, "\n%s\n%s\n", examplesHeading.In(lang), strings.TrimRight(c.Example, "\n"))
	}
	if subs := c.Commands(); len(subs) > 0 {
		fmt.Fprintf(w, "\n%s\n", commandsHeading.In(lang))
		for _, s := range subs {
			if s.IsAvailableCommand() {
				fmt.Fprintf(w, "  %-12s %s\n", s.Name(), short(s, lang))
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprintf(w, "\n%s\n%s", flagsHeading.In(lang), flagUsages(c, lang))
	}
	fmt.Fprintf(w, "\n%s", exitCodes.In(lang))
}

// short is what c does in a line, in lang; the English where c has no
// Chinese (TestHelpInChinese finds none such).
func short(c *cobra.Command, lang string) string {
	if zh := c.Annotations[shortKey]; lang == "zh" && zh != "" {
		return zh
	}
	return c.Short
}

// about is what c does, at length where it says so at length, in lang:
// the Chinese wrapped to helpWidth.
func about(c *cobra.Command, lang string) string {
	if lang == "zh" {
		if zh := c.Annotations[longKey]; zh != "" {
			return wrapText(zh)
		}
		if c.Annotations[shortKey] != "" {
			return short(c, lang)
		}
	}
	if c.Long != "" {
		return c.Long
	}
	return c.Short
}

// helpLang is the --lang of args, "" if none: the language of any help
// the command line prints. When args ask for help (a help flag, or the
// help command) it also takes --lang out of them, for help comes in both
// languages for every command, also those without a --lang of their own
// (lockstep help --lang zh, lessons --help --lang zh), and cobra refuses
// a flag a command does not have before it looks at --help (-lang, as
// lockstep's flags take one dash too, is --lang). Values of the command's
// other flags and everything after "--" are left alone.
func helpLang(root *cobra.Command, args []string) (string, []string) {
	lang, rest, asked := "", make([]string, 0, len(args)), false
	c, _, err := root.Find(args)
	if err == nil && c.HasParent() && c.Name() == "help" {
		asked = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
			i = len(args)
			continue
		case (a == "--lang" || a == "-lang") && i+1 < len(args):
			lang = args[i+1]
			i++
			continue
		case strings.HasPrefix(a, "--lang=") || strings.HasPrefix(a, "-lang="):
			_, lang, _ = strings.Cut(a, "=")
			continue
		case isHelpFlag(a):
			asked = true
		case err == nil && strings.HasPrefix(a, "-"):
			if f := lookupFlag(c.Flags(), a); f != nil && f.NoOptDefVal == "" && !strings.Contains(a, "=") && i+1 < len(args) {
				rest = append(rest, a)
				i++
				a = args[i] // its value, as it is
			}
		}
		rest = append(rest, a)
	}
	if !asked {
		return lang, args
	}
	return lang, rest
}
