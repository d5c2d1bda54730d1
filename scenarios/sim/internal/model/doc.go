// Package model is what a run is made of, as plain data the engine's parts
// share: a scenario's Setup and a client's Program; the Client and its
// Server; an Actor (a goroutine the scheduler controls), the Msg it sends
// the scheduler and where it parks; the Resource the lock protects; the
// Judge's verdicts; the lock's own tokens' names (Renamer); and what the
// engine reads of goroutine stacks (stacks.go) and of the commands lock code
// sends (commands.go). It knows no world: package sim's world holds these
// and moves them.
package model
