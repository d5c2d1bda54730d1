// Package view is what the explorer tells states apart by: State, the typed
// view of a Stepper's world at one instant (servers and their keys, the
// nodes, writes on their way to a replica, clients, actors, the resource,
// the invariants' state, and what the faults' moves left behind,
// FaultMemory). Package explore owns it: it says what a state is, and
// hashes it (explore's state.go and statewrite.go); package sim builds it
// (Stepper.State), from a world the explorer cannot see. Which of the
// world's fields the view holds, and why each other is left out, sim's
// state_test.go lists; explore's state_test.go holds the hash to every
// field of the view.
package view
