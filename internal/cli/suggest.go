package cli

import (
	"errors"
	"fmt"
	"strings"

	suggestpkg "github.com/lockstep-sim/lockstep/internal/suggest"
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
