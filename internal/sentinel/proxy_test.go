package sentinel

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// echo is a server on loopback that sends back every line it reads,
// closed when the test ends.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// roundTrip sends a line through c and reads it back.
func roundTrip(t *testing.T, c net.Conn, r *bufio.Reader, line string) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		t.Fatal(err)
	}
	got, err := r.ReadString('\n')
	if err != nil || got != line+"\n" {
		t.Fatalf("through the proxy: %q, %v; want %q", got, err, line)
	}
}

// A Proxy forwards both ways; Close drops every connection through it at
// once and refuses new ones, while the server behind it runs on.
func TestProxy(t *testing.T) {
	target := echo(t)
	p, err := NewProxy(target)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Target() != target {
		t.Errorf("Target %s, want %s", p.Target(), target)
	}
	var conns []net.Conn
	for i := range 3 {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		roundTrip(t, c, bufio.NewReader(c), "hello "+string(rune('a'+i)))
		conns = append(conns, c)
	}
	closing := time.Now()
	p.Close()
	if d := time.Since(closing); d > time.Second {
		t.Errorf("Close took %v", d)
	}
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, err := c.Read(make([]byte, 1))
		if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("a connection through the closed proxy: %v; want it closed", err)
		}
	}
	if c, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		c.Close()
		t.Errorf("the closed proxy %s still accepts", p.Addr())
	}
	c, err := net.Dial("tcp", target)
	if err != nil {
		t.Fatalf("the server behind the proxy: %v", err)
	}
	defer c.Close()
	roundTrip(t, c, bufio.NewReader(c), "still here")
	p.Close() // again: nothing happens
}

// A connection to a Proxy whose target does not answer is closed at once.
func TestProxyTargetDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	target := ln.Addr().String()
	ln.Close()
	p, err := NewProxy(target)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a connection to a proxy of nothing: %v; want it closed", err)
	}
}
