package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/lockimpl"
	"github.com/lockstep-sim/lockstep/scenarios"
	"github.com/lockstep-sim/lockstep/text"
)

// Shell completion: lockstep completion bash|zsh|fish writes the script;
// the script asks the hidden command "lockstep __complete ARGS…" for the
// candidates, which come from the functions below. Names come with their
// one-line summaries, which zsh and fish show beside them.

type completeFunc = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective)

// scenarioNames are the lessons a command can name: the built-in ones, and
// those in the directory its --lessons flag names, if any (one of which
// may take a built-in's place).
func scenarioNames(c *cobra.Command) []cobra.Completion {
	var mine []scenarios.Scenario
	if f := c.Flags().Lookup("lessons"); f != nil && f.Value.String() != "" {
		mine, _ = readLessonDir(f.Value.String())
	}
	var out []cobra.Completion
	for _, s := range scenarios.Over(mine) {
		out = append(out, cobra.CompletionWithDesc(s.ID, s.Title.EN))
	}
	return out
}

// implNames are the lock implementations: the catalogue's, then the locks
// in other languages.
func implNames(*cobra.Command) []cobra.Completion {
	var out []cobra.Completion
	for _, in := range slices.Concat(lockimpl.All(), lockimpl.Others()) {
		out = append(out, cobra.CompletionWithDesc(in.Name, in.Summary.EN))
	}
	return out
}

// fixed is a completion of a fixed set of words.
func fixed(words ...string) func(*cobra.Command) []cobra.Completion {
	return func(*cobra.Command) []cobra.Completion { return words }
}

// one completes one name of those names gives.
func one(names func(*cobra.Command) []cobra.Completion) completeFunc {
	return func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, n := range names(c) {
			if name, _, _ := strings.Cut(n, "\t"); strings.HasPrefix(name, toComplete) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// list completes the last name of a comma-separated list (--impl
// uuid-lua,fen…), leaving out the names the list has already.
func list(names func(*cobra.Command) []cobra.Completion) completeFunc {
	return func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		done, last := "", toComplete
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			done, last = toComplete[:i+1], toComplete[i+1:]
		}
		given := strings.Split(done, ",")
		var out []cobra.Completion
		for _, n := range names(c) {
			name, desc, _ := strings.Cut(n, "\t")
			if strings.HasPrefix(name, last) && !slices.Contains(given, name) {
				out = append(out, cobra.CompletionWithDesc(done+name, desc))
			}
		}
		// No space after a name: another may follow the comma.
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// positional completes the first positional argument with names, and
// nothing after it.
func positional(names func(*cobra.Command) []cobra.Completion) completeFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return one(names)(c, args, toComplete)
	}
}

// dirArg completes a directory for the first positional argument, and
// nothing after it.
func dirArg(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveFilterDirs
}

func noFiles(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveNoFileComp
}

func dirs(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// files completes file names ending in ext.
func files(ext string) completeFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return []cobra.Completion{ext}, cobra.ShellCompDirectiveFilterFileExt
	}
}

// completeFlags registers how each flag of c that names something
// completes; a flag not listed completes nothing, or file names where it
// takes a file.
func completeFlags(c *cobra.Command, funcs map[string]completeFunc) {
	for name, f := range funcs {
		if err := c.RegisterFlagCompletionFunc(name, f); err != nil {
			panic(fmt.Sprintf("completion for %s --%s: %v", c.Name(), name, err))
		}
	}
}

// realCompletions complete the real-server flags: addresses are the
// user's to type.
var realCompletions = map[string]completeFunc{"redis": noFiles, "replica": noFiles, "time-scale": noFiles}

// cleanCompletions complete clean's flags, addresses all.
var cleanCompletions = map[string]completeFunc{"redis": noFiles, "cluster": noFiles, "replica": noFiles, "sentinel": noFiles}

// commandCompletions are the commands, for help COMMAND.
func commandCompletions(c *cobra.Command) []cobra.Completion {
	var out []cobra.Completion
	for _, s := range c.Root().Commands() {
		if s.IsAvailableCommand() && s.Name() != "help" {
			out = append(out, cobra.CompletionWithDesc(s.Name(), s.Short))
		}
	}
	return out
}

var (
	langs       = fixed("en\tEnglish", "zh\t中文")
	formatNames = fixed("text\ta text timeline", "md\ta Markdown handout", "mermaid\ta Mermaid sequence diagram", "json\tthe trace as JSON", "html\ta self-contained player page")
	faultWords  = func(*cobra.Command) []cobra.Completion { return faultNames() }
)

// bashLists follows cobra's bash script. That script keeps the candidates
// whose printf %q form starts with the word typed, and bash 5.2's printf %q
// writes a comma as "\,": "uuid-lua,fen" matched none of "uuid-lua\,fenced"
// and the TAB inserted nothing. So a word that is plain but for its commas
// is handed to the script as printf %q writes it, and the candidates it
// then inserts get their commas back bare, as typed (a bare comma is a
// comma to bash outside braces). This wraps the script's function rather
// than editing its text, which cobra may change under us.
const bashLists = `
# lockstep: comma lists (check --impl uuid-lua,fen<TAB>); see bashLists in
# lockstep's complete.go.
__lockstep_start_lists()
{
    local word=${COMP_WORDS[COMP_CWORD]} lead=${COMP_LINE:0:COMP_POINT} escaped i
    printf -v escaped %q "$word"
    # Not a plain word with commas, or the cursor inside it: as it is.
    if [[ $escaped == "$word" || ${escaped//\\,/,} != "$word" || $lead != *"$word" ]]; then
        __start_lockstep "$@"
        return
    fi
    COMP_WORDS[COMP_CWORD]=$escaped
    COMP_LINE=${lead%"$word"}$escaped${COMP_LINE:COMP_POINT}
    COMP_POINT=$((COMP_POINT + ${#escaped} - ${#word}))
    __start_lockstep "$@"
    for i in "${!COMPREPLY[@]}"; do
        [[ ${COMPREPLY[i]} == "$escaped"* ]] && COMPREPLY[i]=${COMPREPLY[i]//\\,/,}
    done
}

if [[ $(type -t compopt) = "builtin" ]]; then
    complete -o default -F __lockstep_start_lists lockstep
else
    complete -o default -o nospace -F __lockstep_start_lists lockstep
fi
`

// completionCmd is "lockstep completion bash|zsh|fish": cobra's command,
// made as cobra would make it when the command line runs, whose bash
// writes bashLists after cobra's script. newRoot makes it once the root
// has its output, which cobra's completion commands keep from the moment
// they are made.
func completionCmd(root *cobra.Command) *cobra.Command {
	root.InitDefaultCompletionCmd()
	bash, _, err := root.Find([]string{"completion", "bash"})
	if err != nil || bash.Name() != "bash" || bash.RunE == nil {
		panic(fmt.Sprintf("no completion bash command: %v", err))
	}
	inOverview(bash.Parent(), entry("completion bash|zsh|fish", text.New("a shell completion script: commands,\nflags, lesson and implementation names",
		"shell 补全脚本：命令、选项、课程和锁实现的名字")))
	completionZH(bash.Parent())
	script := bash.RunE
	bash.RunE = func(c *cobra.Command, args []string) error {
		if err := script(c, args); err != nil {
			return err
		}
		_, err := io.WriteString(c.OutOrStdout(), bashLists)
		return err
	}
	return bash.Parent()
}

// completionZH sets the Chinese of cobra's completion commands, which
// cobra writes in English: what the command says, then each shell's, the
// commands to type as cobra has them (TestCompletionHelpInChinese).
func completionZH(completion *cobra.Command) {
	inChinese(completion, "生成指定 shell 的自动补全脚本",
		"为 lockstep 生成指定 shell 的自动补全脚本。生成的脚本怎么用，见各子命令的帮助。")
	const (
		now   = "\n在当前的 shell 会话中加载补全：\n\n"
		every = "\n要让以后每个新会话都加载补全，执行一次：\n\n"
		takes = "\n要启动一个新的 shell，设置才会生效。"
	)
	zh := map[string]string{
		"bash": "为 bash 生成自动补全脚本。\n\n这个脚本依赖 bash-completion 软件包。如果还没装，可以用操作系统的软件包管理器安装。\n" +
			now + "\tsource <(lockstep completion bash)\n" +
			every + "#### Linux:\n\n\tlockstep completion bash > /etc/bash_completion.d/lockstep\n\n" +
			"#### macOS:\n\n\tlockstep completion bash > $(brew --prefix)/etc/bash_completion.d/lockstep\n" + takes,
		"zsh": "为 zsh 生成自动补全脚本。\n\n如果你的环境还没有启用 shell 补全，需要先启用它。可以执行一次：\n\n" +
			"\techo \"autoload -U compinit; compinit\" >> ~/.zshrc\n" +
			now + "\tsource <(lockstep completion zsh)\n" +
			every + "#### Linux:\n\n\tlockstep completion zsh > \"${fpath[1]}/_lockstep\"\n\n" +
			"#### macOS:\n\n\tlockstep completion zsh > $(brew --prefix)/share/zsh/site-functions/_lockstep\n" + takes,
		"fish": "为 fish 生成自动补全脚本。\n" +
			now + "\tlockstep completion fish | source\n" +
			every + "\tlockstep completion fish > ~/.config/fish/completions/lockstep.fish\n" + takes,
		"powershell": "为 powershell 生成自动补全脚本。\n" +
			now + "\tlockstep completion powershell | Out-String | Invoke-Expression\n" +
			"\n要让以后每个新会话都加载补全，把上面那条命令的输出加进你的 powershell 配置文件。",
	}
	for _, c := range completion.Commands() {
		long, ok := zh[c.Name()]
		if !ok {
			panic("completionZH: no Chinese for completion " + c.Name())
		}
		inChinese(c, "生成 "+c.Name()+" 的自动补全脚本", long)
		usagesZH(c.Flags(), map[string]string{"no-descriptions": "补全时不显示说明"})
	}
}
