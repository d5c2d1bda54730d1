package main

import (
	"fmt"
	"os"

	"lockstep/lockimpl"
	"lockstep/report"
	"lockstep/scenarios"
)

func main() {
	s, _ := scenarios.Lookup(os.Args[1])
	impl, _ := lockimpl.Lookup(os.Args[2])
	tr, err := s.Run(impl)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	report.Timeline(os.Stdout, tr, "en")
}
