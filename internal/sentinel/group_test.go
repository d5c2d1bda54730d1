package sentinel

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lockstep-sim/lockstep/internal/redistest"
)

// closedAddr is an address of loopback nobody listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Check names the member that is not a Sentinel, that does not answer, or
// that is the same Sentinel as another.
func TestRealSentinelCheck(t *testing.T) {
	sentinels := startSentinels(t, 2)
	if err := group(t, sentinels).Check(t.Context()); err != nil {
		t.Fatalf("two Sentinels: %v", err)
	}
	plain := redistest.Start(t).Addr()
	down := closedAddr(t)
	for _, c := range []struct {
		addrs []string
		want  string
	}{
		{[]string{sentinels[0], plain}, "sentinel " + plain + ": not a Sentinel"},
		{[]string{down, sentinels[1]}, "sentinel " + down + ": unreachable"},
		{[]string{sentinels[0], sentinels[1], sentinels[0]}, "sentinel " + sentinels[0] + " and " + sentinels[0] + " are the same Sentinel"},
		{nil, "no Sentinels"},
	} {
		err := group(t, c.addrs).Check(t.Context())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check of %v: %v; want %q", c.addrs, err, c.want)
		}
	}
}

// Monitor refuses what Sentinel would refuse or never act on, and where a
// Sentinel refuses the name, no Sentinel of the group keeps it; Master
// says when the Sentinels disagree.
func TestRealSentinelMonitorRefusals(t *testing.T) {
	sentinels := startSentinels(t, 3)
	g := group(t, sentinels)
	ctx := t.Context()
	master := closedAddr(t)
	for _, c := range []struct {
		addr      string
		quorum    int
		downAfter time.Duration
		want      string
	}{
		{"localhost:6379", 2, time.Second, "an IP address"},
		{"127.0.0.1", 2, time.Second, "missing port"},
		{master, 0, time.Second, "quorum 0 for 3 Sentinels"},
		{master, 4, time.Second, "quorum 4 for 3 Sentinels"},
		{master, 2, 0, "whole milliseconds"},
	} {
		err := g.Monitor(ctx, runName(), c.addr, c.quorum, c.downAfter, time.Minute)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Monitor %s quorum %d down-after %v: %v; want %q", c.addr, c.quorum, c.downAfter, err, c.want)
		}
	}

	name := runName()
	if err := group(t, sentinels[1:2]).Monitor(ctx, name, master, 1, time.Second, time.Minute); err != nil {
		t.Fatal(err)
	}
	err := g.Monitor(ctx, name, master, 2, time.Second, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "sentinel "+sentinels[1]+": SENTINEL MONITOR "+name) {
		t.Errorf("Monitor of a name one Sentinel already has: %v", err)
	}
	if _, err := g.Masters(ctx, name); err == nil || !strings.Contains(err.Error(), sentinels[0]+": no master named "+name) {
		t.Errorf("after the refusal: %v; want the name forgotten", err)
	}

	other := closedAddr(t)
	for i, addr := range []string{master, master, other} {
		if err := group(t, sentinels[i:i+1]).Monitor(ctx, name, addr, 1, time.Second, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	defer removed(t, g, name)
	_, err = g.Master(ctx, name)
	if want := sentinels[2] + " says " + other; err == nil || !strings.Contains(err.Error(), "disagree") || !strings.Contains(err.Error(), want) {
		t.Errorf("Master: %v; want a disagreement naming %q", err, want)
	}
}

// WaitReady says what is missing when it gives up: here the replica a
// master with none will never have.
func TestRealSentinelWaitReadyTimesOut(t *testing.T) {
	g := group(t, startSentinels(t, 2))
	primary := redistest.Start(t)
	name := runName()
	if err := g.Monitor(t.Context(), name, primary.Addr(), 2, time.Second, time.Minute); err != nil {
		t.Fatal(err)
	}
	defer removed(t, g, name)
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	err := g.WaitReady(ctx, name, 1)
	if err == nil || !strings.Contains(err.Error(), "knows 0 of 1 replicas up and in sync") {
		t.Errorf("WaitReady: %v; want the missing replica named", err)
	}
}
