package lockimpl

import "github.com/redis/go-redis/v9"

// The Lua scripts the implementations share. Each starts with a comment line
// naming it; lockstep shows that name instead of the whole body in traces.
// They are sent with EVAL, one command each, so that they work the same on a
// server whose script cache is empty (a freshly promoted replica, say).
var (
	// releaseScript deletes the lock only if it still holds our token:
	// compare and delete in one atomic step.
	releaseScript = redis.NewScript(`-- release: delete the lock only if it holds our token
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

	// renewScript extends the lock only if it still holds our token.
	renewScript = redis.NewScript(`-- renew: extend the lock only if it holds our token
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)
)
