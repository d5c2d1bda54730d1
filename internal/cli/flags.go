package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func langFlag(fs *pflag.FlagSet) *string {
	lang := fs.String("lang", "en", "narration and messages in `LANG`: en or zh")
	usagesZH(fs, map[string]string{"lang": langZH})
	return lang
}

// langZH is the usage of --lang where it is the language of the narration
// and messages, in Chinese.
const langZH = "旁白和消息的语言 `LANG`：en 或 zh"

// flagError says what was wrong with a flag as it was typed, and where the
// command's flags are listed.
func flagError(c *cobra.Command, err error) error {
	var (
		notExist *pflag.NotExistError
		invalid  *pflag.InvalidValueError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &notExist):
		typed := "--" + notExist.GetSpecifiedName()
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			typed = "-" + s // -verbose: not a flag of lockstep's, as typed
		}
		msg = "unknown flag: " + typed
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if s := suggest(strings.TrimLeft(typed, "-"), names); len(s) > 0 {
			msg += "; did you mean --" + strings.Join(s, " or --") + "?"
		}
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		switch f.Value.Type() {
		case "bool":
			msg = fmt.Sprintf("invalid boolean value %q for --%s: want true or false", invalid.GetValue(), f.Name)
		case "int":
			msg = fmt.Sprintf("invalid value %q for --%s: want a whole number", invalid.GetValue(), f.Name)
		case "float64":
			msg = fmt.Sprintf("invalid value %q for --%s: want a number", invalid.GetValue(), f.Name)
		case "duration":
			msg = fmt.Sprintf("invalid value %q for --%s: want a duration such as 30ms or 1s", invalid.GetValue(), f.Name)
		}
	}
	return errUsage{fmt.Errorf("%s (%s --help lists its flags)", msg, c.CommandPath())}
}

// flagsBeforeCommand refuses the terminal UI's flags in front of a command
// (lockstep --lang zh list): each command has flags of its own, after it.
func flagsBeforeCommand(root *cobra.Command, args []string) error {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") || slices.ContainsFunc(args, isHelpFlag) {
		return nil
	}
	fs := root.Flags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return nil
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if f := lookupFlag(fs, a); f != nil && f.NoOptDefVal == "" && !strings.Contains(a, "=") {
				i++ // its value
			}
		case slices.Contains(commandNames(root), a):
			return errUsage{fmt.Errorf("flags go after the command: lockstep %s %s", a, strings.Join(args[:i], " "))}
		default:
			return nil
		}
	}
	return nil
}

func isHelpFlag(a string) bool { return a == "-h" || a == "--help" || a == "-help" }

// lookupFlag finds the flag an argument such as --impl, --impl=x or -impl
// names in fs.
func lookupFlag(fs *pflag.FlagSet, arg string) *pflag.Flag {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	if !strings.HasPrefix(arg, "--") && len(name) == 1 {
		return fs.ShorthandLookup(name)
	}
	return fs.Lookup(name)
}

// longFlags rewrites -impl as --impl, for every long flag of the command
// args run: lockstep's flags were Go flag-package flags, which take one dash
// as well as two. Values of flags and everything after "--" are left as
// they are.
func longFlags(root *cobra.Command, args []string) []string {
	c, _, err := root.Find(args)
	if err != nil {
		return args
	}
	c.InitDefaultHelpFlag()
	fs := c.Flags()
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			out = append(out, a)
			continue
		}
		f := lookupFlag(fs, a)
		if f != nil && !strings.HasPrefix(a, "--") && f.Name != "" && strings.HasPrefix(a[1:], f.Name) {
			a = "-" + a // -impl, -impl=x; not -h
		}
		out = append(out, a)
		if f != nil && f.NoOptDefVal == "" && !strings.Contains(a, "=") && i+1 < len(args) {
			i++
			out = append(out, args[i]) // its value, as it is
		}
	}
	return out
}
