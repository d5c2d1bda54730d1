package engine

import (
	"reflect"
	"runtime"

	"github.com/lockstep-sim/lockstep/scenarios/sim/internal/model"
)

// The goroutine stacks the engine reads (package model's stacks.go) find
// an actor's goroutine by the functions it runs, named here from the
// functions themselves.
func init() {
	model.SendFrame = funcName((*ActorSide).Send)
	model.RunActorFrame = funcName((*ActorSide).runActor)
}

// funcName is f's name as a traceback shows it: "pkg/path.(*T).Method".
func funcName(f any) string {
	return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
}
