// Package fleet is the servers of one run (Fleet): which server serves each
// logical node, replication from a primary to its replica with its lag
// (replication.go), failover, and on real servers the Sentinels that decide
// it (sentinel.go). It reaches the world it serves only through Host: the
// run's time, its trace, its end.
package fleet
