// A lock client that gets a fencing token with each lease, and a store that refuses older tokens;
// the lock service is an interface, so that an in-memory one can stand in for Redis.
export {}; // a module, so that these names cannot collide with the DOM's globals

// Sent by acquireWithToken with EVALSHA (KEYS: lock, counter; ARGV: owner value, ttl). A single script,
// because a client frozen between a SET and a later INCR can sleep past its lease and then draw a newer
// token than its successor. The counter has no PX, so no expiry ever resets it.
export const ACQUIRE_WITH_TOKEN_SCRIPT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return false -- nil to the client: the lock is taken
`;

// One method per round trip to Redis, the unit in which a client can be interrupted.
interface LockService {
  acquireWithToken(key: string, tokenKey: string, ownerValue: string, ttlMs: number): number | null; // ACQUIRE_WITH_TOKEN_SCRIPT
  compareAndDelete(key: string, ownerValue: string): boolean; // a Lua script: no command between the halves
  compareAndExpire(key: string, ownerValue: string, ttlMs: number): boolean; // renewal, a Lua script too
}

type Clock = () => number;

class MemoryLockService implements LockService {
  private readonly locks = new Map<string, { ownerValue: string; expiresAtMs: number }>();

  constructor(private readonly nowMs: Clock, private readonly counters = new Map<string, number>()) {}

  private isHeldBy(key: string, ownerValue: string | null): boolean { // null asks whether the key is free
    const lock = this.locks.get(key);
    const live = lock !== undefined && this.nowMs() < lock.expiresAtMs;
    return live ? lock.ownerValue === ownerValue : ownerValue === null;
  }

  private put(key: string, ownerValue: string, ttlMs: number): boolean {
    this.locks.set(key, { ownerValue, expiresAtMs: this.nowMs() + ttlMs });
    return true;
  }

  // Checked, granted and counted in one call with nothing in between, as the script is.
  acquireWithToken(key: string, tokenKey: string, ownerValue: string, ttlMs: number): number | null {
    if (!this.isHeldBy(key, null)) return null;
    this.put(key, ownerValue, ttlMs);
    const token = (this.counters.get(tokenKey) ?? 0) + 1;
    this.counters.set(tokenKey, token);
    return token;
  }

  compareAndDelete(key: string, ownerValue: string): boolean {
    return this.isHeldBy(key, ownerValue) && this.locks.delete(key);
  }

  compareAndExpire(key: string, ownerValue: string, ttlMs: number): boolean {
    return this.isHeldBy(key, ownerValue) && this.put(key, ownerValue, ttlMs);
  }
}

// The value only has to be unique. Math.random is predictable, though: production code draws it from a
// cryptographic source such as crypto.getRandomValues, a host API this file stays clear of.
function randomOwnerValue(): string {
  const hex = (digits: number): string =>
    Array.from({ length: digits }, () => Math.floor(Math.random() * 16).toString(16)).join("");
  return `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`;
}

type Lease = { readonly ownerValue: string; readonly token: number; readonly expiresAtMs: number };

class LockClient {
  constructor(
    private readonly service: LockService,
    private readonly nowMs: Clock,
    private readonly lockKey: string,
    private readonly ttlMs: number,
  ) {}

  acquire(): Lease | undefined {
    const ownerValue = randomOwnerValue();
    // Counted from before the request, so our idea of the expiry is never later than the server's.
    const expiresAtMs = this.nowMs() + this.ttlMs;
    // The grant and the token in one round trip, as etcd hands out its revision with the grant.
    const token = this.service.acquireWithToken(this.lockKey, `${this.lockKey}:token`, ownerValue, this.ttlMs);
    return token === null ? undefined : { ownerValue, token, expiresAtMs };
  }

  // Never a plain DEL: once our lease has expired the key may be a successor's, and DEL would free it.
  release(lease: Lease): boolean {
    return this.service.compareAndDelete(this.lockKey, lease.ownerValue);
  }
}

type WriteResult = { accepted: true } | { accepted: false; reason: string };

// Only the resource sees writes in the order they land, so the check lives here, atomic with the write.
class FencedStore {
  highestToken = 0; // INCR never returns 0, so the first write always passes
  data = "";

  write(token: number, data: string): WriteResult {
    // Equal passes, so that one holder can write several times under one lease.
    if (token < this.highestToken) {
      return { accepted: false, reason: `token ${token} < ${this.highestToken} already accepted` };
    }
    this.highestToken = token;
    this.data = data;
    return { accepted: true };
  }
}

let nowMs = 0;
const clock: Clock = () => nowMs;
// 32 leases were granted before this story, so that the tokens are Kleppmann's 33 and 34.
const service = new MemoryLockService(clock, new Map([["report:token", 32]]));
const a = new LockClient(service, clock, "report", 10_000);
const b = new LockClient(service, clock, "report", 10_000);
const store = new FencedStore();
const leaseA = a.acquire()!; // non-null: the lock starts free
console.log(`A acquired the lock: token ${leaseA.token}, lease ends at ${leaseA.expiresAtMs} ms`);
nowMs += 15_000; // a stop-the-world pause: A can neither act nor notice
const leaseB = b.acquire()!; // non-null: A's lease has run out
console.log(`B acquired the lock at ${nowMs} ms: token ${leaseB.token}, lease ends at ${leaseB.expiresAtMs} ms`);
for (const [name, lease, data] of [["B", leaseB, "B's report"], ["A", leaseA, "A's report"]] as const) {
  const result = store.write(lease.token, data);
  const outcome = result.accepted ? "accepted" : `rejected (${result.reason})`;
  console.log(`${name} writes with token ${lease.token}: ${outcome}`);
}
console.log(`A releases: ${a.release(leaseA)} (compare-and-delete left B's lock alone)`);
console.log(`the store holds "${store.data}" under token ${store.highestToken}`);
