// Command hostmain hosts bubbles outside go test, for host_test.go: it
// sleeps a virtual hour in two bubbles at once and prints what their
// clocks said.
package main

import (
	"fmt"
	"os"
	"sync"
	"time"

	"lockstep/internal/bubble"
)

func main() {
	var wg sync.WaitGroup
	slept := make([]time.Duration, 2)
	for i := range slept {
		wg.Go(func() {
			b := bubble.New()
			b.Do(func() {
				t0 := time.Now()
				time.Sleep(time.Hour)
				slept[i] = time.Since(t0)
			})
			if err := b.Close(time.Second); err != nil {
				fmt.Println(err)
				os.Exit(1)
			}
		})
	}
	wg.Wait()
	// The command line is the program's own: the host reads none of it
	// (-test.v makes nothing chatty).
	fmt.Println(slept[0], slept[1], os.Args[1:])
}
