package scenarios

// SharedCheck is sharedCheck for the tests of package scenarios_test: they
// render traces as text with report.Timeline, and report imports this
// package, so only an external test can use both.
var SharedCheck = sharedCheck
