package sim

// resource is the data the lock protects: the stock of one product. A client
// reads it, works, and writes back what it read minus one. With fencing, the
// store refuses a write whose token is lower than one it has already seen.
type resource struct {
	name     string
	value    int
	version  int // accepted writes so far
	maxFence int64
	rejected int
}

// writeResult says what happened to one write.
type writeResult struct {
	value      int
	fence      int64
	maxFence   int64
	rejected   bool
	lostUpdate bool // accepted, but based on a read that another write had overtaken
	readVer    int
	version    int
}

func (r *resource) write(value, readVer int, fence int64) writeResult {
	res := writeResult{value: value, fence: fence, maxFence: r.maxFence, readVer: readVer, version: r.version}
	if fence > 0 && fence < r.maxFence {
		r.rejected++
		res.rejected = true
		return res
	}
	res.lostUpdate = readVer != r.version
	r.value = value
	r.version++
	r.maxFence = max(r.maxFence, fence)
	return res
}

func (r *resource) state() ResourceState {
	return ResourceState{Name: r.name, Value: r.value, Version: r.version,
		MaxFence: r.maxFence, Rejected: r.rejected}
}
