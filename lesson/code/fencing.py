"""A lock client that gets a fencing token with each lease, and a store that refuses older tokens."""

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

# What acquire_with_token sends to Redis with EVALSHA (KEYS: lock, counter; ARGV: owner value, ttl).
# Why a script and not SET, then INCR: a client frozen between two round trips can wake after its lease
# has run out and draw a newer token than the client that took the lock meanwhile. The counter has no
# PX, so no expiry ever resets it.
ACQUIRE_WITH_TOKEN_SCRIPT = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return false -- nil to the client: the lock is taken
"""


class LockService(Protocol):
    """The lock service's commands, as a protocol so that this file runs without a Redis client."""

    def acquire_with_token(self, key: str, token_key: str, owner_value: str, ttl_ms: int) -> int | None: ...  # the script above
    def compare_and_delete(self, key: str, owner_value: str) -> bool: ...  # a Lua script: no command between the halves
    def compare_and_expire(self, key: str, owner_value: str, ttl_ms: int) -> bool: ...  # renewal, a Lua script too


class MemoryLockService:
    def __init__(self, now_ms: Callable[[], int], counters: dict[str, int] | None = None) -> None:
        self._now_ms = now_ms
        self._locks: dict[str, tuple[str, int]] = {}  # key -> (owner value, expires at ms)
        self._counters = dict(counters or {})

    def _owner(self, key: str) -> str | None:
        owner_value, expires_at_ms = self._locks.get(key, (None, 0))
        return owner_value if self._now_ms() < expires_at_ms else None

    def _put(self, key: str, owner_value: str, ttl_ms: int) -> bool:
        self._locks[key] = (owner_value, self._now_ms() + ttl_ms)
        return True

    def acquire_with_token(self, key: str, token_key: str, owner_value: str, ttl_ms: int) -> int | None:
        if self._owner(key) is not None:  # checked and granted in one call, as the script does
            return None
        self._put(key, owner_value, ttl_ms)
        self._counters[token_key] = self._counters.get(token_key, 0) + 1
        return self._counters[token_key]

    def compare_and_delete(self, key: str, owner_value: str) -> bool:
        return self._owner(key) == owner_value and self._locks.pop(key) is not None

    def compare_and_expire(self, key: str, owner_value: str, ttl_ms: int) -> bool:
        return self._owner(key) == owner_value and self._put(key, owner_value, ttl_ms)


@dataclass(frozen=True)
class Lease:
    owner_value: str
    token: int
    expires_at_ms: int


class LockClient:
    def __init__(self, service: LockService, now_ms: Callable[[], int], lock_key: str, ttl_ms: int) -> None:
        self._service, self._now_ms, self._lock_key, self._ttl_ms = service, now_ms, lock_key, ttl_ms

    def acquire(self) -> Lease | None:
        owner_value = str(uuid.uuid4())  # only has to be unique; uuid4 draws on os.urandom
        # Counted from before the request, so our idea of the expiry is never later than the server's.
        expires_at_ms = self._now_ms() + self._ttl_ms
        # The grant and the token in one round trip, as etcd hands out its revision with the grant.
        token = self._service.acquire_with_token(self._lock_key, f"{self._lock_key}:token", owner_value, self._ttl_ms)
        return None if token is None else Lease(owner_value, token, expires_at_ms)

    def release(self, lease: Lease) -> bool:
        # Never a plain DEL: once our lease has expired the key may be a successor's, and DEL would free it.
        return self._service.compare_and_delete(self._lock_key, lease.owner_value)


@dataclass(frozen=True)
class WriteResult:
    accepted: bool
    reason: str = ""


class FencedStore:
    """Only the resource sees writes in the order they land, so the check lives here, atomic with the write."""

    def __init__(self) -> None:
        self.highest_token = 0  # INCR never returns 0, so the first write always passes
        self.data = ""

    def write(self, token: int, data: str) -> WriteResult:
        # Equal passes, so that one holder can write several times under one lease.
        if token < self.highest_token:
            return WriteResult(accepted=False, reason=f"token {token} < {self.highest_token} already accepted")
        self.highest_token, self.data = token, data
        return WriteResult(accepted=True)


def main() -> None:
    now_ms = 0

    def clock() -> int:  # a closure, so it sees every advance main makes below
        return now_ms

    # 32 leases were granted before this story, so that the tokens are Kleppmann's 33 and 34.
    service = MemoryLockService(clock, counters={"report:token": 32})
    a, b = (LockClient(service, clock, "report", ttl_ms=10_000) for _ in range(2))
    store = FencedStore()
    lease_a = a.acquire()
    assert lease_a is not None, "the lock starts free"
    print(f"A acquired the lock: token {lease_a.token}, lease ends at {lease_a.expires_at_ms} ms")
    now_ms += 15_000  # a stop-the-world pause: A can neither act nor notice
    lease_b = b.acquire()
    assert lease_b is not None, "A's lease has run out"
    print(f"B acquired the lock at {now_ms} ms: token {lease_b.token}, lease ends at {lease_b.expires_at_ms} ms")
    for name, lease, data in (("B", lease_b, "B's report"), ("A", lease_a, "A's report")):
        result = store.write(lease.token, data)
        outcome = "accepted" if result.accepted else f"rejected ({result.reason})"
        print(f"{name} writes with token {lease.token}: {outcome}")
    print(f"A releases: {a.release(lease_a)} (compare-and-delete left B's lock alone)")
    print(f"the store holds {store.data!r} under token {store.highest_token}")


if __name__ == "__main__":
    main()
