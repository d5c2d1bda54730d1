package backend

import (
	"strings"
	"sync"

	"github.com/lockstep-sim/lockstep/scenarios/sim/command"

	"github.com/redis/go-redis/v9"
)

// This file is Redis Cluster's key-to-slot rule, which an embedded server
// made for a cluster (NewEmbedded; a world whose sim.Setup says Cluster)
// applies (miniredis has no cluster mode): a command or script whose keys
// are in different slots is refused with CROSSSLOT, as a cluster node
// refuses it before looking at anything else.

// Slots is the number of hash slots of a Redis Cluster.
const Slots = 16384

// HashSlot is the slot of key as Redis Cluster computes it: CRC16 (XMODEM)
// of the key, modulo 16384; when the key has a hash tag — a "{" followed,
// later, by a "}" with something between them — only what is between the
// first "{" and the first "}" after it counts.
func HashSlot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16(key) % Slots)
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial 0), the checksum
// Redis Cluster's slots are made of.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// The words of a cluster node's refusals: a command (or a script's declared
// keys) across slots, and a script's command on a key outside the slot of
// the keys it declared or first touched (Redis 7).
const (
	crossSlot       = "CROSSSLOT Keys in request don't hash to the same slot"
	scriptCrossSlot = "ERR Script attempted to access keys that do not hash to the same slot"
)

// slotRule is a cluster node's check of the keys of each command, as a
// world with sim.Setup.Cluster has its embedded servers make it. A script's
// commands are held to the slot of the keys the script declared, or, when it
// declared none, of the first key it touched. A transaction's queued
// commands are checked one by one (Redis checks them together at EXEC; the
// locks here keep a transaction on one key).
type slotRule struct {
	mu     sync.Mutex
	script int // the running script's slot; -1: none yet
}

// check is what the node answers to args, or "" when it runs them; inScript:
// args come from a script.
func (r *slotRule) check(args []string, inScript bool) string {
	if len(args) == 0 {
		return ""
	}
	keys := command.KeysOf(args)
	r.mu.Lock()
	defer r.mu.Unlock()
	if inScript {
		for _, k := range keys {
			s := HashSlot(k)
			if r.script < 0 {
				r.script = s
			} else if s != r.script {
				return scriptCrossSlot
			}
		}
		return ""
	}
	slot := -1
	for _, k := range keys {
		s := HashSlot(k)
		if slot < 0 {
			slot = s
		} else if s != slot {
			return crossSlot
		}
	}
	r.script = slot // a script about to run starts from its declared keys' slot
	return ""
}

// IsCrossSlot says whether err is a cluster node's refusal of keys across
// slots. It is the lesson's, not a command the engine failed to run: a lock
// refused so on every call still gets a verdict (noVerdict).
func IsCrossSlot(err error) bool {
	return err != nil && (redis.HasErrorPrefix(err, "CROSSSLOT") ||
		strings.Contains(err.Error(), "Script attempted to access keys that do not hash to the same slot"))
}
