package sentinel

import (
	"io"
	"net"
	"sync"
	"time"
)

// Proxy is a plain TCP forwarder on 127.0.0.1 in front of one server:
// every connection to Addr is a connection to the target, bytes copied
// both ways as they come. Sentinels monitor a Proxy instead of the server
// itself, so that closing the Proxy makes the server unreachable to them
// (the primary "dies") while the server itself runs on untouched, and no
// Sentinel can ever reach it again to reconfigure it.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// NewProxy listens on a free port of 127.0.0.1 and forwards every
// connection it accepts to target (host:port).
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Go(p.accept)
	return p, nil
}

// Addr is the address the Proxy listens on, 127.0.0.1:PORT.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Target is the address the Proxy forwards to.
func (p *Proxy) Target() string { return p.target }

func (p *Proxy) accept() {
	for {
		down, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(down) {
			return
		}
		p.wg.Go(func() { p.forward(down) })
	}
}

// forward connects down to the target and copies both ways until either
// side ends; then both connections close.
func (p *Proxy) forward(down net.Conn) {
	defer p.untrack(down)
	up, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		return
	}
	if !p.track(up) {
		return
	}
	defer p.untrack(up)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, down); done <- struct{}{} }()
	go func() { _, _ = io.Copy(down, up); done <- struct{}{} }()
	<-done
	up.Close()
	down.Close()
	<-done
}

// track registers c to be closed by Close; after Close it closes c at once
// and reports false.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// Close stops accepting, closes every connection through the Proxy at
// once (both sides), and waits for its goroutines. Closing again does
// nothing.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.ln.Close()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
