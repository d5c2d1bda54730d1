package sim

// resource is the data the lock protects: the stock of one product. A client
// reads it, works, and writes back what it read minus one. With fencing, the
// token comes with every request, the read too, and the store refuses a
// write whose token is lower than one it has already seen: a write checked
// against earlier writes only would still let an old holder's write land
// between a newer holder's read and its write.
type resource struct {
	name     string
	value    int
	version  int // accepted writes so far
	maxFence int64
	rejected int
	initial  int  // the value before the first write
	written  bool // some write has come, accepted or not
	writers  []string
	guard    Guard
	sold     map[int]bool // GuardUnique: the units sold (the stock each sale read)
	owner    string       // GuardToken: the lock token the row was last stamped with
}

// writeResult says what happened to one write.
type writeResult struct {
	value    int
	fence    int64
	maxFence int64
	rejected bool
	// guard is the resource guard that refused the write ("" when it was
	// accepted, or refused for its fencing token).
	guard      Guard
	lostUpdate bool // accepted, but based on a read that another write had overtaken
	readVer    int
	version    int
	// read is the value the writer read; initial the resource's value
	// before any write.
	read, initial int
	// stock is the resource's value when the write came.
	stock int
	// since are the writers of the accepted writes after the read, in order.
	since []string
	// token is the writer's lock token and owner the token the row carries;
	// stamped says the row has them (GuardToken).
	token, owner string
	stamped      bool
	// relative says the write is a decrement of the stock as it is
	// (GuardRelative), not a value computed from the read.
	relative bool
}

// write is client writer's write of value, based on the read at version
// readVer; fence is its fencing token (0: none), token its lock token. With
// GuardRelative the write is a decrement of the stock as it is now: it
// lands as the current value minus one, and no update is lost.
func (r *resource) write(writer string, value, readVer int, fence int64, token string) writeResult {
	if !r.written {
		r.initial, r.written = r.value, true
	}
	res := writeResult{value: value, fence: fence, maxFence: r.maxFence, readVer: readVer, version: r.version,
		read: value + 1, initial: r.initial, stock: r.value,
		token: token, owner: r.owner, stamped: r.guard == GuardToken, relative: r.guard == GuardRelative}
	if fence > 0 && fence < r.maxFence {
		r.rejected++
		res.rejected = true
		return res
	}
	if g := r.refuses(res.read, readVer, token); g != GuardNone {
		r.rejected++
		res.rejected, res.guard = true, g
		return res
	}
	if r.guard == GuardUnique {
		if r.sold == nil {
			r.sold = map[int]bool{}
		}
		r.sold[res.read] = true
	}
	if r.guard == GuardRelative {
		value, res.value = r.value-1, r.value-1
	} else {
		res.lostUpdate = readVer != r.version
	}
	if res.lostUpdate && readVer < len(r.writers) {
		res.since = append([]string(nil), r.writers[readVer:]...)
	}
	r.value = value
	r.version++
	r.writers = append(r.writers, writer)
	r.maxFence = max(r.maxFence, fence)
	return res
}

// read records the reader's fencing token (0: none) and, with GuardToken,
// stamps the row with its lock token.
func (r *resource) read(fence int64, token string) {
	r.maxFence = max(r.maxFence, fence)
	if r.guard == GuardToken {
		r.owner = token
	}
}

func (r *resource) state() ResourceState {
	return ResourceState{Name: r.name, Value: r.value, Version: r.version,
		MaxFence: r.maxFence, Rejected: r.rejected}
}
