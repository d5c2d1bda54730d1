package realredis

import (
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"
	"github.com/lockstep-sim/lockstep/scenarios/sim/realserver"
)

// MonitorFilter tells, line by line, the commands the locks of lockstep's
// runs send from everything else MONITOR shows: lockstep's own reads (the
// snapshots' reads, the checks, the cleanup), every connection's
// handshake, other programs' commands.
//
// MONITOR names a client by its address, not by its name, and an address
// outlives its connection: once a connection closes, the port is free for
// the next, which may be a lock's. So an address is lockstep's own
// (realserver.ObserverName) from the line that names it so until the
// next connection on it begins: go-redis opens every connection, a lock's
// too, with HELLO (redis-cli with AUTH). Remembering an address for good
// instead, as the README's old awk filter did, hid a lock's client whose
// port an observer had had (#37, item 10).
type MonitorFilter struct {
	// own are the addresses whose connection is lockstep's own.
	own map[string]bool
	// runs are the run each address last sent a run's key for.
	runs map[string]string
}

// NewMonitorFilter is a filter that starts with the addresses of
// lockstep's own connections open when MONITOR began (Monitor.Observers).
func NewMonitorFilter(observers []string) *MonitorFilter {
	f := &MonitorFilter{own: map[string]bool{}, runs: map[string]string{}}
	for _, a := range observers {
		f.own[a] = true
	}
	return f
}

// Lock says whether l is a command of a lock of a lockstep run, and which
// run: the 8 hex digits of its keys' prefix. A script's command ("lua")
// is its run's when its key is.
//
// On a unix socket every client has one address, so lockstep's own lines
// there cannot be told apart: each line with a run's key shows
// (SharedAddr).
func (f *MonitorFilter) Lock(l MonitorLine) (run string, ok bool) {
	if l.Addr == "lua" || SharedAddr(l.Addr) {
		// An address of many clients: nothing is known of it, and a
		// line shows by its key.
		if isHandshake(l) {
			return "", false
		}
		run = runOf(l.Args[1:])
		return run, run != ""
	}
	if f.handshake(l) || f.own[l.Addr] {
		return "", false
	}
	if run = runOf(l.Args[1:]); run != "" {
		f.runs[l.Addr] = run
		return run, true
	}
	// A command that names no key (WAIT, EXEC) belongs to the run of its
	// connection's earlier commands: a lock's connection serves one run.
	if !command.Keyless(l.Command()) && !command.Keyless(l.Command()+"|"+l.arg(1)) {
		return "", false
	}
	run = f.runs[l.Addr]
	return run, run != ""
}

// SharedAddr says whether MONITOR gives addr to more than one client: the
// unix socket's "unix:PATH".
func SharedAddr(addr string) bool { return strings.HasPrefix(addr, "unix:") }

// handshake follows what l says of its connection and says whether l is
// part of a connection's handshake (HELLO, AUTH, SELECT, PING, CLIENT
// SETNAME and SETINFO, RESET), which no lock's trace shows.
func (f *MonitorFilter) handshake(l MonitorLine) bool {
	switch l.Command() {
	case "hello", "auth", "reset":
		// A connection begins (or begins anew) on this address: what
		// was known of the one before it is gone.
		delete(f.own, l.Addr)
		delete(f.runs, l.Addr)
		if name, ok := helloName(l); ok {
			f.name(l.Addr, name)
		}
	case "client":
		if l.arg(1) == "setname" && len(l.Args) > 2 {
			f.name(l.Addr, l.Args[2])
		}
	}
	return isHandshake(l)
}

// name records the name a connection gave itself.
func (f *MonitorFilter) name(addr, name string) {
	if name == realserver.ObserverName {
		f.own[addr] = true
	} else {
		delete(f.own, addr)
	}
}

// isHandshake says whether l is a command a client sends to set its
// connection up rather than for its work.
func isHandshake(l MonitorLine) bool {
	switch l.Command() {
	case "hello", "auth", "reset", "select", "ping":
		return true
	case "client":
		sub := l.arg(1)
		return sub == "setname" || sub == "setinfo"
	}
	return false
}

// helloName is the name HELLO … SETNAME NAME gives the connection.
func helloName(l MonitorLine) (string, bool) {
	if l.Command() != "hello" {
		return "", false
	}
	for i := 2; i+1 < len(l.Args); i++ {
		switch l.arg(i) {
		case "auth":
			i += 2
		case "setname":
			return l.Args[i+1], true
		}
	}
	return "", false
}
