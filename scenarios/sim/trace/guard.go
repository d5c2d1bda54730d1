package trace

import (
	"errors"

	"github.com/lockstep-sim/lockstep/internal/suggest"
	"github.com/lockstep-sim/lockstep/text"
)

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
	// GuardRelative is a relative update, UPDATE … SET stock = stock - 1
	// WHERE stock > 0: the sale is a decrement the database applies to the
	// stock as it is when the write comes, not a value the client computed
	// from its read, so no sale is lost whatever the read was; like
	// GuardInStock it refuses a sale once the stock is gone. This one is
	// less a guard than the answer that needs no lock at all, where the
	// whole critical section is one statement.
	GuardRelative Guard = "relative"
	// GuardUnique is a unique constraint: each sale inserts an order row
	// for the unit it sells (the stock it read), and a unique key on
	// (product, unit) refuses a second order for the same unit.
	GuardUnique Guard = "unique"
	// GuardToken is antirez's check-and-set with the lock's random token:
	// a client that starts on the row stamps it with its lock token (its
	// read is UPDATE … SET lock_token = ? … RETURNING stock), and its write
	// is UPDATE … WHERE lock_token = (its token). A later holder's stamp
	// replaces the token, so an earlier holder's write matches no row. No
	// counter, no order: only a token that tells the holders apart.
	GuardToken Guard = "token"
	// GuardIdempotent makes the critical section idempotent: the job's
	// write is its result, the same whoever runs it and however often —
	// the sale of order 8801 recorded under its idempotency key (INSERT …
	// ON CONFLICT (order_id) DO NOTHING), a cache rebuilt from its source.
	// A second run leaves the row as the first left it: nothing is lost,
	// and the work is done twice. Not a check that refuses anything: the
	// section needs no lock for its safety, only for its efficiency.
	GuardIdempotent Guard = "idempotent"
)

// Guards are the guards a lesson can switch on, in the order the docs list
// them.
var Guards = []Guard{GuardVersion, GuardInStock, GuardRelative, GuardUnique, GuardToken, GuardIdempotent}

// ParseGuard returns the guard named s.
func ParseGuard(s string) (Guard, error) {
	for _, g := range Guards {
		if string(g) == s {
			return g, nil
		}
	}
	names := make([]string, len(Guards))
	for i, g := range Guards {
		names[i] = string(g)
	}
	return GuardNone, errors.New(suggest.Unknown(text.New("guard", "防护"), s, names).EN)
}
