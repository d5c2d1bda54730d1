// Command hostmain hosts bubbles outside go test, for host_test.go: three
// bubbles at once, each a 10s sleep and five ticks of a 1s ticker, and it
// prints what their clocks said, then its own arguments as the flag
// package parsed them.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/lockstep-sim/lockstep/internal/bubble"
)

func main() {
	name := flag.String("name", "", "a flag of the program's own")
	flag.Parse()
	var wg sync.WaitGroup
	took := make([]time.Duration, 3)
	for i := range took {
		wg.Go(func() {
			b := bubble.New()
			b.Do(func() { took[i] = sleepAndTick() })
			if err := b.Close(time.Second); err != nil {
				fmt.Println(err)
				os.Exit(1)
			}
		})
	}
	wg.Wait()
	// The command line is the program's own: the host reads none of it
	// (-test.v makes nothing chatty), and flag.Args is left as parsed.
	fmt.Println(took, *name, flag.Args())
}

// sleepAndTick sleeps 10s, then waits for five ticks of a 1s ticker, and
// says how long that took on the caller's clock.
func sleepAndTick() time.Duration {
	t0 := time.Now()
	time.Sleep(10 * time.Second)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for range 5 {
		<-tick.C
	}
	return time.Since(t0)
}
