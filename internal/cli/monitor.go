package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lockstep-sim/lockstep/text"

	"github.com/spf13/cobra"

	"github.com/lockstep-sim/lockstep/realredis"
)

// monitorFlags are monitor's flags.
type monitorFlags struct {
	redis string
	all   bool
}

func (a *cli) monitorCmd() *cobra.Command {
	c := command("monitor --redis ADDR [--all]",
		text.New("watch a real server's MONITOR: the locks' commands of lockstep's runs", "观看真实服务器的 MONITOR：lockstep 各次运行中锁的命令"),
		text.New(`monitor shows what the locks of lockstep's runs send to a real server as it
arrives, for a room to watch beside a live lesson: MONITOR, read by lockstep,
which leaves out its own connections (named lockstep-observer: the snapshots'
reads, the checks, the cleanup), every connection's handshake (HELLO,
AUTH, SELECT, PING, CLIENT SETNAME and SETINFO) and every command of another
program. Each line is MONITOR's, after the run it belongs to: the 8 hex
digits of the run's keys (lockstep:<8 hex>:…), one for all the cells of a
check. A script's own commands ([0 lua]) show by their keys. An address is
lockstep's own from the line that names it so until the next connection on
it begins (HELLO, or AUTH), so a lock whose client has a port an observer
had before still shows. On a unix socket MONITOR gives every client one
address, and lockstep's reads there show too: run lockstep over TCP. --all
prints every line MONITOR shows, passwords redacted. It runs until Ctrl-C
(exit 0); a server it cannot reach, or one that closes the connection, is
exit 2.`,
			"monitor 把 lockstep 各次运行中的锁发给一台真实服务器的命令，在到达时显示出来，供课堂在实时的课旁边观看："+
				"由 lockstep 读取的 MONITOR，去掉了 lockstep 自己的连接（名为 lockstep-observer：快照的读取、检查、清理）、"+
				"每个连接的握手（HELLO、AUTH、SELECT、PING、CLIENT SETNAME 和 SETINFO）以及别的程序的每条命令。"+
				"每一行都是 MONITOR 的原样，跟在它所属的运行之后：该运行的键里的 8 位十六进制数（lockstep:<8 hex>:…），"+
				"一次 check 的所有组合共用一个。脚本自己的命令（[0 lua]）按它们的键显示。"+
				"一个地址从某一行表明它属于 lockstep 起就算 lockstep 的，直到它上面的下一个连接开始（HELLO 或 AUTH），"+
				"所以即使锁的客户端用了观察者用过的端口，也照样显示。在 unix 套接字上，MONITOR 给每个客户端同一个地址，"+
				"lockstep 在那里的读取也会显示：请让 lockstep 走 TCP。--all 打印 MONITOR 显示的每一行，密码会被遮盖。"+
				"它一直运行到 Ctrl-C（退出码 0）；连不上的服务器，或关闭了连接的服务器，退出码为 2。"),
		`  lockstep monitor --redis 127.0.0.1:6390
  lockstep monitor --redis ${LOCKSTEP_REDIS%%,*}
  lockstep monitor --redis redis://:secret@127.0.0.1:6390 --all`)
	f := &monitorFlags{}
	fs := c.Flags()
	fs.StringVar(&f.redis, "redis", "", "the real server `ADDR` to watch (required): host:port, [ipv6]:port, redis://[user:password@]host:port, rediss://… or unix://[:password@]/path, as for play --redis")
	fs.BoolVar(&f.all, "all", false, "every line MONITOR shows, as it shows it: lockstep's own, other programs', the handshakes")
	usagesZH(fs, map[string]string{
		"redis": "要观看的真实服务器 `ADDR`（必填）：host:port、[ipv6]:port、redis://[user:password@]host:port、" +
			"rediss://… 或 unix://[:password@]/path，写法同 play --redis",
		"all": "MONITOR 显示的每一行，原样照登：lockstep 自己的、别的程序的、握手",
	})
	inOverview(c, entry("monitor --redis ADDR [--all]", text.New("a server's MONITOR for the room: the\n"+
		"locks' commands of lockstep's runs, each\nafter its run; --all every line",
		"给课堂看的服务器 MONITOR：lockstep 各次运行中锁的命令，每条跟在所属的运行之后；--all 显示每一行")))
	c.ValidArgsFunction = noFiles
	completeFlags(c, map[string]completeFunc{"redis": noFiles})
	c.RunE = func(c *cobra.Command, pos []string) error {
		return a.done(cmdMonitor(c.Context(), f, pos, a.stdout, c.ErrOrStderr()))
	}
	return c
}

// check says what is wrong with monitor's arguments, if anything.
func (f *monitorFlags) check(pos []string) error {
	switch {
	case len(pos) > 0:
		return errUsage{fmt.Errorf("monitor takes no arguments, got %q", strings.Join(pos, " "))}
	case f.redis == "":
		return errUsage{errors.New("monitor watches a real server: give it with --redis ADDR")}
	case strings.Contains(f.redis, ","):
		return errUsage{fmt.Errorf("monitor watches one server, and --redis gives %d: give the one to watch (the first of $LOCKSTEP_REDIS is ${LOCKSTEP_REDIS%%%%,*}), and run one monitor for each", strings.Count(f.redis, ",")+1)}
	}
	return nil
}

// cmdMonitor prints MONITOR's lines, the locks' only unless --all, until
// a signal ends it (exit 0) or the server closes the connection.
func cmdMonitor(ctx context.Context, f *monitorFlags, pos []string, stdout, stderr io.Writer) (int, error) {
	if err := f.check(pos); err != nil {
		return 0, err
	}
	m, err := realredis.OpenMonitor(ctx, f.redis)
	if ctx.Err() != nil {
		return exitOK, nil // Ctrl-C is how a monitor ends
	}
	if err != nil {
		return 0, errUsage{err}
	}
	defer m.Close()
	what, show := "the locks' commands of lockstep's runs, each after its run", lockLines(realredis.NewMonitorFilter(m.Observers()), stderr)
	if f.all {
		what, show = "every line MONITOR shows", allLines
	}
	fmt.Fprintf(stderr, "lockstep: watching %s: %s; Ctrl-C stops\n", text.Clean(m.Addr()), what)
	w := &lines{w: stdout}
	err = m.Run(ctx, func(raw string) error {
		if line, ok := show(raw); ok {
			w.printf("%s\n", text.Clean(line))
		}
		return w.err
	})
	if ctx.Err() != nil {
		return exitOK, w.err
	}
	return 0, err
}

// allLines is --all: every line, passwords redacted.
func allLines(raw string) (string, bool) {
	if l, ok := realredis.ParseMonitorLine(raw); ok {
		return l.Redacted(), true
	}
	return raw, true
}

// lockLines is the default view: the lines filter takes for a lock's,
// each after its run. The first line on a unix socket says, on stderr,
// that lockstep's own lines there show too.
func lockLines(filter *realredis.MonitorFilter, stderr io.Writer) func(string) (string, bool) {
	warned := false
	return func(raw string) (string, bool) {
		l, ok := realredis.ParseMonitorLine(raw)
		if !ok {
			return "", false
		}
		if realredis.SharedAddr(l.Addr) && !warned {
			warned = true
			fmt.Fprintf(stderr, "lockstep: MONITOR gives every client on the unix socket one address (%s), so lockstep's own reads there cannot be told from a lock's and show too; run lockstep over TCP to leave them out\n", text.Clean(l.Addr))
		}
		run, ok := filter.Lock(l)
		if !ok {
			return "", false
		}
		return run + " " + l.Redacted(), true
	}
}
