package main

// go generate ./... writes every file that follows from the lessons and the
// catalogue of implementations, in this order: first each lesson's expect
// row for an implementation it does not name yet (the lock run through the
// lesson; the rows that are there stay as they are), then, in runs built
// with those rows (the lessons are embedded), the files derived from them:
// the README's matrix, diagram and tables, docs/explore.md's agreement
// table (only its missing cells searched), docs/lessons.md's quoted lesson,
// and docs/ itself, whose go:generate line is main.go's (a file's lines run
// after generate.go's, in the order of the files' names). Its diff is what
// to review. The tests that find one of these files stale name this one
// command. The first step alone is lockstep expect --write (without
// --write, a check that the lessons lack no row).

//go:generate go run ./internal/derive/cmd expect
//go:generate go run ./internal/derive/cmd files
