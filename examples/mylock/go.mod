module example.com/mylock

go 1.26.8

require github.com/redis/go-redis/v9 v9.23.0

require (
	github.com/charmbracelet/x/ansi v0.11.6 // indirect
	github.com/clipperhouse/displaywidth v0.9.0 // indirect
	github.com/clipperhouse/stringish v0.1.1 // indirect
	github.com/clipperhouse/uax29/v2 v2.5.0 // indirect
	github.com/lucasb-eyer/go-colorful v1.3.0 // indirect
	github.com/mattn/go-runewidth v0.0.19 // indirect
)

require (
	github.com/alicebob/miniredis/v2 v2.40.0 // indirect
	github.com/bsm/redislock v0.9.4 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-redsync/redsync/v4 v4.18.1 // indirect
	github.com/lockstep-sim/lockstep v0.0.0
	github.com/yuin/gopher-lua v1.1.1 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace github.com/lockstep-sim/lockstep => ../..
