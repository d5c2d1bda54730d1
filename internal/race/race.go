// Package race tells a test whether the race detector is on, so that a test
// that does the same thing for every cell of the matrix can do it for a
// sample of them under the detector (ten times slower): a data race is in
// the code a cell runs, not in which cell it is, and the plain run still
// takes every cell.
package race

// Stride is how far apart the sampled cells are: every seventh. Seven and
// the catalogue's nineteen implementations share no factor, so the sample
// takes every implementation, each in other lessons.
const Stride = 7

// Sampled reports whether the test looks at cell i (counting from 0): all
// of them without the race detector, every Stride-th with it.
func Sampled(i int) bool { return !Enabled || i%Stride == 0 }
