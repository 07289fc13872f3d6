// A lock client that gets a fencing token with each lease, and a store that refuses older tokens;
// the lock service is an interface, so that an in-memory one can stand in for Redis.
package main

import (
	"crypto/rand"
	"fmt"
)

// acquireWithTokenScript is what AcquireWithToken sends with EVALSHA (KEYS: lock, counter; ARGV: owner
// value, ttl). It is one script because a client frozen between a SET and a later INCR can outlive its
// lease and then draw a newer token than its successor. The counter has no PX, so no expiry resets it.
const acquireWithTokenScript = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return false -- nil to the client: the lock is taken
`

// LockService has one method per round trip to Redis, the unit in which a client can be interrupted.
type LockService interface {
	// AcquireWithToken runs acquireWithTokenScript; ok is false when the lock is taken.
	AcquireWithToken(key, tokenKey, ownerValue string, ttlMs int64) (token int64, ok bool)
	CompareAndDelete(key, ownerValue string) bool              // a Lua script: no command between the halves
	CompareAndExpire(key, ownerValue string, ttlMs int64) bool // renewal, a Lua script too
}

type heldLock struct {
	ownerValue  string
	expiresAtMs int64
}

type MemoryLockService struct {
	nowMs    func() int64
	locks    map[string]heldLock
	counters map[string]int64
}

func (s *MemoryLockService) isHeldBy(key, ownerValue string) bool { // "" asks whether the key is free
	lock, ok := s.locks[key]
	live := ok && s.nowMs() < lock.expiresAtMs
	return (live && lock.ownerValue == ownerValue) || (!live && ownerValue == "")
}

func (s *MemoryLockService) set(key string, lock heldLock) bool { s.locks[key] = lock; return true }
func (s *MemoryLockService) del(key string) bool                { delete(s.locks, key); return true }

// AcquireWithToken grants and counts in one call, with nothing in between, as the script does.
func (s *MemoryLockService) AcquireWithToken(key, tokenKey, ownerValue string, ttlMs int64) (int64, bool) {
	if !s.isHeldBy(key, "") {
		return 0, false
	}
	s.set(key, heldLock{ownerValue, s.nowMs() + ttlMs})
	s.counters[tokenKey]++
	return s.counters[tokenKey], true
}

func (s *MemoryLockService) CompareAndDelete(key, ownerValue string) bool {
	return s.isHeldBy(key, ownerValue) && s.del(key)
}

func (s *MemoryLockService) CompareAndExpire(key, ownerValue string, ttlMs int64) bool {
	return s.isHeldBy(key, ownerValue) && s.set(key, heldLock{ownerValue, s.nowMs() + ttlMs})
}

type Lease struct {
	OwnerValue         string
	Token, ExpiresAtMs int64
}

type LockClient struct {
	Service LockService
	NowMs   func() int64
	LockKey string
	TtlMs   int64
}

func (c *LockClient) Acquire() *Lease {
	var random [16]byte
	if _, err := rand.Read(random[:]); err != nil { // the value must be unique, hence crypto/rand
		panic(err)
	}
	ownerValue := fmt.Sprintf("%x-%x-%x-%x-%x", random[0:4], random[4:6], random[6:8], random[8:10], random[10:])
	// Counted from before the request, so our idea of the expiry is never later than the server's.
	expiresAtMs := c.NowMs() + c.TtlMs
	// The grant and the token in one round trip, as etcd hands out its revision with the grant.
	token, ok := c.Service.AcquireWithToken(c.LockKey, c.LockKey+":token", ownerValue, c.TtlMs)
	if !ok {
		return nil
	}
	return &Lease{ownerValue, token, expiresAtMs}
}

// Release never sends a plain DEL: once our lease has expired the key may be a successor's.
func (c *LockClient) Release(lease *Lease) bool {
	return c.Service.CompareAndDelete(c.LockKey, lease.OwnerValue)
}

// FencedStore holds the check, as only the resource sees writes in the order they land.
type FencedStore struct {
	HighestToken int64 // 0 until the first write: INCR never returns it
	Data         string
}

func (s *FencedStore) Write(token int64, data string) error {
	if token < s.HighestToken { // equal passes, so that one holder can write several times under one lease
		return fmt.Errorf("token %d < %d already accepted", token, s.HighestToken)
	}
	s.HighestToken, s.Data = token, data
	return nil
}

func main() {
	var nowMs int64
	clock := func() int64 { return nowMs }
	// 32 leases were granted before this story, so that the tokens are Kleppmann's 33 and 34.
	service := &MemoryLockService{clock, map[string]heldLock{}, map[string]int64{"report:token": 32}}
	a, b, store := &LockClient{service, clock, "report", 10_000}, &LockClient{service, clock, "report", 10_000}, &FencedStore{}
	leaseA := a.Acquire()
	fmt.Printf("A acquired the lock: token %d, lease ends at %d ms\n", leaseA.Token, leaseA.ExpiresAtMs)
	nowMs += 15_000 // a stop-the-world pause: A can neither act nor notice
	leaseB := b.Acquire()
	fmt.Printf("B acquired the lock at %d ms: token %d, lease ends at %d ms\n", nowMs, leaseB.Token, leaseB.ExpiresAtMs)
	report := func(name string, lease *Lease, data string) {
		outcome := "accepted"
		if err := store.Write(lease.Token, data); err != nil {
			outcome = fmt.Sprintf("rejected (%v)", err)
		}
		fmt.Printf("%s writes with token %d: %s\n", name, lease.Token, outcome)
	}
	report("B", leaseB, "B's report")
	report("A", leaseA, "A's report")
	fmt.Printf("A releases: %t (compare-and-delete left B's lock alone)\n", a.Release(leaseA))
	fmt.Printf("the store holds %q under token %d\n", store.Data, store.HighestToken)
}
