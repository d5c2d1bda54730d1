package sim

// A slow server is a fault only a lesson's timeline has: from a step on,
// every command reaches that server late (a congested or flapping link:
// a delay on the way, so a later command may overtake an earlier one; a
// stalled server would run its commands in the order they came), and runs
// there then, while the rest of the world runs
// on (Timeline.Slow). The explorer has no move for it.
func init() {
	registerFault(faultSpec{lessonOnly: true, verbRank: 8, FaultInfo: FaultInfo{
		Verbs: []LessonVerb{{Name: "slow", Takes: TakesServerBy, Usage: "want slow redis-N by=DURATION (by=0s: fast again)",
			Search: SearchLacks, Do: onServerBy((*Timeline).Slow)}}}})
}
