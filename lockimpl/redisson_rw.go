package lockimpl

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// The scripts of Redisson's read-write lock (RedissonReadLock,
// RedissonWriteLock, Redisson 3.x), as Redisson sends them, less the
// unlock message each release publishes for waiters: lockstep's clients
// retry instead. KEYS[1] is the lock: a hash of its mode ("read" or
// "write") and a hold count per holder, a reader's field its token, a
// writer's its token and ":write". Each read hold also has a key of its
// own, {KEY}:TOKEN:rwlock_timeout:N, with the lease's TTL.
var (
	rwReadAcquireScript = redis.NewScript(`-- rw-read-acquire: share the lock with other readers, or wait for the writer
local mode = redis.call('HGET', KEYS[1], 'mode')
if mode == false then
  redis.call('HSET', KEYS[1], 'mode', 'read')
  redis.call('HSET', KEYS[1], ARGV[2], 1)
  redis.call('SET', KEYS[2] .. ':1', 1)
  redis.call('PEXPIRE', KEYS[2] .. ':1', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return nil
end
if mode == 'read' or (mode == 'write' and redis.call('HEXISTS', KEYS[1], ARGV[3]) == 1) then
  local ind = redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
  local key = KEYS[2] .. ':' .. ind
  redis.call('SET', key, 1)
  redis.call('PEXPIRE', key, ARGV[1])
  local remain = redis.call('PTTL', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], math.max(remain, tonumber(ARGV[1])))
  return nil
end
return redis.call('PTTL', KEYS[1])`)

	rwWriteAcquireScript = redis.NewScript(`-- rw-write-acquire: take the lock alone, or again while we hold it
local mode = redis.call('HGET', KEYS[1], 'mode')
if mode == false then
  redis.call('HSET', KEYS[1], 'mode', 'write')
  redis.call('HSET', KEYS[1], ARGV[2], 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return nil
end
if mode == 'write' and redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
  redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
  local current = redis.call('PTTL', KEYS[1])
  redis.call('PEXPIRE', KEYS[1], current + tonumber(ARGV[1]))
  return nil
end
return redis.call('PTTL', KEYS[1])`)

	// rwReadReleaseScript keeps the lock while another hold's own key
	// lives: the hash then expires with the longest of them.
	rwReadReleaseScript = redis.NewScript(`-- rw-read-release: drop one read hold; the lock lives while another hold's key does
local mode = redis.call('HGET', KEYS[1], 'mode')
if mode == false then
  return 1
end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return nil
end
local counter = redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if counter == 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
redis.call('DEL', KEYS[2] .. ':' .. (counter + 1))
if redis.call('HLEN', KEYS[1]) > 1 then
  local maxRemain = -3
  for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
    local n = tonumber(redis.call('HGET', KEYS[1], field))
    if type(n) == 'number' then
      for i = n, 1, -1 do
        local remain = redis.call('PTTL', KEYS[3] .. ':' .. field .. ':rwlock_timeout:' .. i)
        maxRemain = math.max(remain, maxRemain)
      end
    end
  end
  if maxRemain > 0 then
    redis.call('PEXPIRE', KEYS[1], maxRemain)
    return 0
  end
  if mode == 'write' then
    return 0
  end
end
redis.call('DEL', KEYS[1])
return 1`)

	// rwReadRenewScript is a reader's watchdog: the hash and every read
	// hold's own key, while this reader still holds one.
	rwReadRenewScript = redis.NewScript(`-- rw-read-renew: extend the lock and every read hold's key, if we hold one
if redis.call('HGET', KEYS[1], ARGV[2]) ~= false then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  if redis.call('HLEN', KEYS[1]) > 1 then
    for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
      local n = tonumber(redis.call('HGET', KEYS[1], field))
      if type(n) == 'number' then
        for i = n, 1, -1 do
          redis.call('PEXPIRE', KEYS[2] .. ':' .. field .. ':rwlock_timeout:' .. i, ARGV[1])
        end
      end
    end
  end
  return 1
end
return 0`)

	rwWriteReleaseScript = redis.NewScript(`-- rw-write-release: drop one write hold; readers the writer let in keep the lock
local mode = redis.call('HGET', KEYS[1], 'mode')
if mode == false then
  return 1
end
if mode == 'write' then
  if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then
    return nil
  end
  if redis.call('HINCRBY', KEYS[1], ARGV[2], -1) > 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    return 0
  end
  redis.call('HDEL', KEYS[1], ARGV[2])
  if redis.call('HLEN', KEYS[1]) == 1 then
    redis.call('DEL', KEYS[1])
  else
    redis.call('HSET', KEYS[1], 'mode', 'read')
  end
  return 1
end
return nil`)

	// rwReadReleaseUncheckedScript is the plain reentrant lock's release
	// put on a read hold: at its last hold the reader deletes the whole
	// hash, other readers' holds in it or not.
	rwReadReleaseUncheckedScript = redis.NewScript(`-- rw-read-release-unchecked: drop one read hold; at zero delete the lock, other readers or not
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return nil
end
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) > 0 then
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2] .. ':1')
return 1`)
)

// ReadWriter is implemented by a read-write lock (读写锁, Redisson's
// RReadWriteLock): the Lock itself is the write lock, held by one client
// alone; ReadLock is a handle on the same lock that shares it with other
// readers and keeps writers out. A lesson's client that only reads
// (client … read) takes the read lock of a lock that has one, and the
// whole lock of one that has not.
type ReadWriter interface {
	Lock
	// ReadLock returns the read lock's handle, for the same client.
	ReadLock() Lock
}

// RedissonRW is Redisson's read-write lock: one hash for both modes, the
// mode and a hold count per holder, and for each read hold a key of its
// own with the lease's TTL. A reader that leaves keeps the hash alive for
// as long as the longest of the other holds' keys, and no longer; a
// reader's watchdog renews the hash and every read hold's key. The write
// lock is reentrant; a writer may also take the read lock. Both renew
// every TTL/3 with no cap, unless the caller passed a lease (Env.Lease),
// as Redisson's lock() and lock(leaseTime) do.
//
// Fixes: over redisson, readers share the lock (many readers or one
// writer), and a reader that leaves does not free the lock under the
// readers still inside.
//
// Misses: what redisson misses (a pause, one server, no fencing token);
// readers that keep coming keep a writer waiting: it is not fair.
type RedissonRW struct {
	*rwLock
}

// NewRedissonRW returns Redisson's read-write lock; the handle is the write
// lock, and ReadLock gives the read lock.
func NewRedissonRW(env Env) Lock {
	return &RedissonRW{rwLock: &rwLock{env: env, own: &owner{env: env}, readRelease: rwReadReleaseScript}}
}

// RWUnchecked is RedissonRW with the plain reentrant lock's release on its
// read holds: a reader's last release deletes the whole hash, though other
// readers still hold it.
//
// Fixes: nothing over redisson-rw: it is the trap of a read-write lock
// built from the reentrant lock's scripts.
//
// Misses: when the first reader leaves, a writer gets in beside the
// readers still reading.
type RWUnchecked struct {
	*rwLock
}

// NewRWUnchecked returns the read-write lock whose read release does not
// look at other readers.
func NewRWUnchecked(env Env) Lock {
	return &RWUnchecked{rwLock: &rwLock{env: env, own: &owner{env: env}, readRelease: rwReadReleaseUncheckedScript}}
}

// rwLock is one handle on a read-write lock: its write lock, or (read) its
// read lock. The two handles of one client share its token.
type rwLock struct {
	env         Env
	own         *owner
	read        bool
	holds       int
	dog         *watchdog
	readRelease *redis.Script
}

// ReadLock returns the read lock's handle, with this handle's token.
func (l *rwLock) ReadLock() Lock {
	return &rwLock{env: l.env, own: l.own, read: true, readRelease: l.readRelease}
}

// field is the hash field of this handle's holds.
func (l *rwLock) field(token string) string {
	if l.read {
		return token
	}
	return token + ":write"
}

// timeouts is the prefix of this reader's hold keys, {KEY}:TOKEN:rwlock_timeout.
func (l *rwLock) timeouts(token string) string {
	return "{" + l.env.Key + "}:" + token + ":rwlock_timeout"
}

// TryAcquire runs the mode's acquire script: nil is "taken", a number the
// time the holders have left. The first hold starts the watchdog unless
// the caller passed a lease.
func (l *rwLock) TryAcquire(ctx context.Context) (bool, error) {
	token := l.own.current()
	ttl := ttlMillis(l.env.TTL)
	var err error
	if l.read {
		err = rwReadAcquireScript.Eval(ctx, l.env.Nodes[0], []string{l.env.Key, l.timeouts(token)},
			ttl, token, token+":write").Err()
	} else {
		err = rwWriteAcquireScript.Eval(ctx, l.env.Nodes[0], []string{l.env.Key}, ttl, token+":write").Err()
	}
	if !errors.Is(err, redis.Nil) {
		return false, err // nil: the holders' PTTL came back
	}
	l.holds++
	if l.holds == 1 && l.env.Lease == 0 {
		l.dog.stop() // a watchdog left from a hold that was lost
		l.dog = startRenewing(ctx, l.env, token, 0, l.renew)
	}
	return true, nil
}

// renew is the watchdog's renewal: a reader's extends every read hold's
// key too; a writer's is the reentrant lock's.
func (l *rwLock) renew(ctx context.Context, env Env, token string) (bool, error) {
	var n int64
	var err error
	if l.read {
		n, err = rwReadRenewScript.Eval(ctx, env.Nodes[0], []string{env.Key, "{" + env.Key + "}"},
			ttlMillis(env.TTL), token).Int64()
	} else {
		n, err = reentrantRenewScript.Eval(ctx, env.Nodes[0], []string{env.Key}, l.field(token), ttlMillis(env.TTL)).Int64()
	}
	return n == 1, err
}

// Release stops the watchdog before the last hold goes, then runs the
// mode's release script; nil from it means the lock was not ours.
func (l *rwLock) Release(ctx context.Context) error {
	token, ok := l.own.held()
	if !ok {
		return ErrNotHeld
	}
	if l.holds <= 1 {
		l.dog.stop()
		l.dog = nil
	}
	var err error
	if l.read {
		err = l.readRelease.Eval(ctx, l.env.Nodes[0], []string{l.env.Key, l.timeouts(token), "{" + l.env.Key + "}"}, token).Err()
	} else {
		err = rwWriteReleaseScript.Eval(ctx, l.env.Nodes[0], []string{l.env.Key}, ttlMillis(l.env.TTL), l.field(token)).Err()
	}
	switch {
	case errors.Is(err, redis.Nil):
		l.holds = 0
		l.own.drop()
		return ErrNotHeld
	case err != nil:
		return err
	}
	if l.holds--; l.holds <= 0 {
		l.holds = 0
		l.own.drop()
	}
	return nil
}

// Lost is closed when a renewal found this handle's hold gone.
func (l *rwLock) Lost() <-chan struct{} { return l.dog.lostChan() }
