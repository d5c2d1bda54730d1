package bubble

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"
)

// A bubble's clock moves only when its goroutines wait: a 1-hour sleep takes
// no wall time and reads as an hour on the bubble's clock.
func TestSleepIsVirtual(t *testing.T) {
	b := New()
	var slept time.Duration
	start := time.Now()
	b.Do(func() {
		t0 := time.Now()
		time.Sleep(time.Hour)
		slept = time.Since(t0)
	})
	if err := b.Close(time.Second); err != nil {
		t.Fatal(err)
	}
	if slept != time.Hour {
		t.Errorf("the bubble's clock moved %s, want 1h", slept)
	}
	if wall := time.Since(start); wall > 5*time.Second {
		t.Errorf("a virtual hour took %s of wall time", wall)
	}
}

// The clock stands still between calls of Do, however long the caller waits.
func TestClockStandsStillBetweenCalls(t *testing.T) {
	b := New()
	defer b.Close(time.Second)
	var t1, t2 time.Time
	fired := make(chan bool, 1)
	b.Do(func() {
		t1 = time.Now()
		time.AfterFunc(time.Second, func() { fired <- true })
	})
	time.Sleep(20 * time.Millisecond)
	b.Do(func() { t2 = time.Now() })
	if !t1.Equal(t2) {
		t.Errorf("the clock moved from %s to %s between calls", t1, t2)
	}
	select {
	case <-fired:
		t.Error("a timer fired between calls")
	default:
	}
	b.Do(func() { time.Sleep(2 * time.Second) })
	select {
	case <-fired:
	default:
		t.Error("the timer did not fire while a call slept past it")
	}
}

// Wait returns once every other goroutine of the bubble is blocked.
func TestWait(t *testing.T) {
	b := New()
	defer b.Close(time.Second)
	b.Do(func() {
		var mu sync.Mutex
		n := 0
		ch := make(chan struct{})
		for range 10 {
			go func() {
				mu.Lock()
				n++
				mu.Unlock()
				<-ch
			}()
		}
		Wait()
		mu.Lock()
		got := n
		mu.Unlock()
		if got != 10 {
			t.Errorf("Wait returned with %d of 10 goroutines blocked", got)
		}
		close(ch)
	})
}

// A goroutine left blocked for good is reported by Close, not hung on.
func TestDeadlockIsReported(t *testing.T) {
	b := New()
	b.Do(func() {
		go func() { select {} }()
	})
	if err := b.Close(time.Second); !Deadlocked(err) {
		t.Fatalf("Close = %v, want a deadlock", err)
	}
}

// A panic in a call is raised in its caller.
func TestPanicReachesCaller(t *testing.T) {
	b := New()
	defer b.Close(time.Second)
	defer func() {
		if p := recover(); p != "boom" {
			t.Errorf("recovered %v, want boom", p)
		}
	}()
	b.Do(func() { panic("boom") })
}

// Bubbles run side by side, each on its own clock: a context deadline over
// a net.Pipe round trip fires on virtual time in each.
func TestBubblesSideBySide(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			b := New()
			var err error
			var took time.Duration
			b.Do(func() {
				c, s := net.Pipe()
				defer c.Close()
				defer s.Close()
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i+1)*time.Second)
				defer cancel()
				t0 := time.Now()
				go func() { <-ctx.Done(); c.Close() }()
				_, err = c.Read(make([]byte, 1))
				took = time.Since(t0)
			})
			if cerr := b.Close(time.Second); cerr != nil {
				t.Error(cerr)
			}
			if err == nil || took != time.Duration(i+1)*time.Second {
				t.Errorf("bubble %d: read ended after %s with %v", i, took, err)
			}
		})
	}
	wg.Wait()
}

// Close does not hang on a goroutine blocked outside the bubble's reach.
func TestCloseIsBounded(t *testing.T) {
	b := New()
	var mu sync.Mutex
	mu.Lock()
	b.Do(func() {
		go func() { mu.Lock() }()
	})
	if err := b.Close(50 * time.Millisecond); err != ErrStillRunning {
		t.Fatalf("Close = %v, want ErrStillRunning", err)
	}
	mu.Unlock()
}
