package sim

import "fmt"

// Guard is a check the protected resource makes on every write by itself,
// whatever the lock did: the database's last line of defence that the course
// texts ask for where correctness matters (stock, money). A fencing token
// (lockimpl's fenced) is one more such check; it comes with the lock, these
// come with the data.
type Guard string

const (
	// GuardNone: the store takes every write.
	GuardNone Guard = ""
	// GuardVersion is an optimistic lock (乐观锁): each write says which
	// version it read, UPDATE … SET stock = ?, version = version + 1
	// WHERE version = ?; a write based on a read that another write has
	// overtaken matches no row.
	GuardVersion Guard = "version"
	// GuardInStock is a conditional update, UPDATE … SET stock = ?
	// WHERE stock > 0: it refuses a sale once the stock is gone, and
	// nothing else — a stale write while items are left still lands.
	GuardInStock Guard = "in-stock"
	// GuardUnique is a unique constraint: each sale inserts an order row
	// for the unit it sells (the stock it read), and a unique key on
	// (product, unit) refuses a second order for the same unit.
	GuardUnique Guard = "unique"
)

// Guards are the guards a lesson can switch on, in the order the docs list
// them.
var Guards = []Guard{GuardVersion, GuardInStock, GuardUnique}

// ParseGuard returns the guard named s.
func ParseGuard(s string) (Guard, error) {
	for _, g := range Guards {
		if string(g) == s {
			return g, nil
		}
	}
	return GuardNone, fmt.Errorf("unknown guard %q: want version, in-stock or unique", s)
}

// refuses returns the guard when it refuses a write based on a read of
// read at version readVer, GuardNone when it lets the write through.
func (r *resource) refuses(read, readVer int) Guard {
	switch r.guard {
	case GuardVersion:
		if readVer != r.version {
			return r.guard
		}
	case GuardInStock:
		if r.value <= 0 {
			return r.guard
		}
	case GuardUnique:
		if r.sold[read] {
			return r.guard
		}
	}
	return GuardNone
}
