package realserver

import (
	"io"
	"net"
	"sync"
	"time"
)

// relay stands between a real replica and its primary and holds the
// replication stream: what the primary sends reaches the replica lag later,
// in order; cut drops everything still on its way, as a primary that dies
// takes its unsent writes with it. The replica connects to the relay as if it
// were its primary (REPLICAOF 127.0.0.1 <relay port>); what the replica says
// (PSYNC, REPLCONF ACK) goes through at once.
type relay struct {
	ln      net.Listener
	primary string
	lag     time.Duration

	mu      sync.Mutex
	conns   []net.Conn
	pending int
	cut     bool
	wg      sync.WaitGroup
}

func newRelay(primary string, lag time.Duration) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{ln: ln, primary: primary, lag: lag}
	r.wg.Go(r.accept)
	return r, nil
}

func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) accept() {
	for {
		down, err := r.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.DialTimeout("tcp", r.primary, 2*time.Second)
		if err != nil {
			down.Close()
			continue
		}
		if !r.track(down, up) {
			return
		}
		r.wg.Go(func() { _, _ = io.Copy(up, down); up.Close() })
		r.wg.Go(func() { r.delay(up, down) })
	}
}

func (r *relay) track(cs ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cut {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	r.conns = append(r.conns, cs...)
	return true
}

type chunk struct {
	due  time.Time
	data []byte
}

// delay forwards from up to down, each chunk lag after it arrived.
func (r *relay) delay(up, down net.Conn) {
	q := make(chan chunk, 1024)
	r.wg.Go(func() {
		for c := range q {
			time.Sleep(time.Until(c.due))
			r.mu.Lock()
			cut := r.cut
			r.pending--
			r.mu.Unlock()
			if cut {
				continue
			}
			if _, err := down.Write(c.data); err != nil {
				continue
			}
		}
	})
	defer close(q)
	buf := make([]byte, 32<<10)
	for {
		n, err := up.Read(buf)
		if n > 0 {
			r.mu.Lock()
			r.pending++
			r.mu.Unlock()
			q <- chunk{time.Now().Add(r.lag), append([]byte(nil), buf[:n]...)}
		}
		if err != nil {
			return
		}
	}
}

// waiting is how many chunks of the stream are still on their way.
func (r *relay) waiting() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pending
}

// cutOff drops the stream: connections close, nothing more is delivered.
func (r *relay) cutOff() {
	r.mu.Lock()
	r.cut = true
	for _, c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.ln.Close()
}

// close cuts the relay off and waits for its goroutines.
func (r *relay) close() {
	r.cutOff()
	r.wg.Wait()
}
