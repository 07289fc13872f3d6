// A lock client that gets a fencing token with each lease, and a store that refuses older tokens;
// the lock service is an interface, so that an in-memory one can stand in for Redis.
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.LongSupplier;

public class Fencing {
    /**
     * What {@code acquireWithToken} sends with EVALSHA (KEYS: lock, counter; ARGV: owner value, ttl). One script
     * rather than SET and then INCR, since a client frozen between those two round trips can outlive its lease and
     * then draw a newer token than its successor. The counter has no PX, so no expiry ever resets it.
     */
    static final String ACQUIRE_WITH_TOKEN_LUA = """
            if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
              return redis.call('INCR', KEYS[2])
            end
            return false -- nil to the client: the lock is taken
            """;

    /** One method per round trip to Redis, the unit in which a client can be interrupted. */
    interface LockService {
        OptionalLong acquireWithToken(String key, String tokenKey, String ownerValue, long ttlMs); // ACQUIRE_WITH_TOKEN_LUA
        boolean compareAndDelete(String key, String ownerValue); // a Lua script: no command between the halves
        boolean compareAndExpire(String key, String ownerValue, long ttlMs); // renewal, a Lua script too
    }

    record HeldLock(String ownerValue, long expiresAtMs) {}

    static final class MemoryLockService implements LockService {
        private final LongSupplier nowMs;
        private final Map<String, HeldLock> locks = new HashMap<>();
        private final Map<String, Long> counters;

        MemoryLockService(LongSupplier nowMs, Map<String, Long> counters) {
            this.nowMs = nowMs;
            this.counters = new HashMap<>(counters);
        }

        private boolean isHeldBy(String key, String ownerValue) { // null asks whether the key is free
            HeldLock lock = locks.get(key);
            boolean live = lock != null && nowMs.getAsLong() < lock.expiresAtMs();
            return live ? lock.ownerValue().equals(ownerValue) : ownerValue == null;
        }

        private boolean put(String key, String ownerValue, long ttlMs) {
            locks.put(key, new HeldLock(ownerValue, nowMs.getAsLong() + ttlMs));
            return true;
        }

        /** Checked, granted and counted in one call with nothing in between, as the script is. */
        @Override public OptionalLong acquireWithToken(String key, String tokenKey, String ownerValue, long ttlMs) {
            if (!isHeldBy(key, null)) {
                return OptionalLong.empty();
            }
            put(key, ownerValue, ttlMs);
            return OptionalLong.of(counters.merge(tokenKey, 1L, Long::sum));
        }

        @Override public boolean compareAndDelete(String key, String ownerValue) {
            return isHeldBy(key, ownerValue) && locks.remove(key) != null;
        }

        @Override public boolean compareAndExpire(String key, String ownerValue, long ttlMs) {
            return isHeldBy(key, ownerValue) && put(key, ownerValue, ttlMs);
        }
    }

    record Lease(String ownerValue, long token, long expiresAtMs) {}

    record LockClient(LockService service, LongSupplier nowMs, String lockKey, long ttlMs) {
        Optional<Lease> acquire() {
            String ownerValue = UUID.randomUUID().toString(); // only has to be unique; randomUUID uses SecureRandom
            // Counted from before the request, so our idea of the expiry is never later than the server's.
            long expiresAtMs = nowMs.getAsLong() + ttlMs;
            // The grant and the token in one round trip, as etcd hands out its revision with the grant.
            OptionalLong token = service.acquireWithToken(lockKey, lockKey + ":token", ownerValue, ttlMs);
            if (token.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new Lease(ownerValue, token.getAsLong(), expiresAtMs));
        }

        /** Never a plain DEL: once our lease has expired the key may be a successor's, and DEL would free it. */
        boolean release(Lease lease) {
            return service.compareAndDelete(lockKey, lease.ownerValue());
        }
    }

    record WriteResult(boolean accepted, String reason) {}

    /** Only the resource sees writes in the order they land, so the check lives here, atomic with the write. */
    static final class FencedStore {
        private long highestToken = 0; // INCR never returns 0, so the first write always passes
        private String data = "";

        WriteResult write(long token, String data) {
            // Equal passes, so that one holder can write several times under one lease.
            if (token < highestToken) {
                return new WriteResult(false, "token " + token + " < " + highestToken + " already accepted");
            }
            this.highestToken = token;
            this.data = data;
            return new WriteResult(true, "");
        }
    }

    public static void main(String[] args) {
        long[] nowMs = {0}; // an array, because a lambda may only capture effectively final locals
        LongSupplier clock = () -> nowMs[0];
        // 32 leases were granted before this story, so that the tokens are Kleppmann's 33 and 34.
        var service = new MemoryLockService(clock, Map.of("report:token", 32L));
        var a = new LockClient(service, clock, "report", 10_000);
        var b = new LockClient(service, clock, "report", 10_000);
        var store = new FencedStore();
        Lease leaseA = a.acquire().orElseThrow(); // the lock starts free
        System.out.printf("A acquired the lock: token %d, lease ends at %d ms%n", leaseA.token(), leaseA.expiresAtMs());
        nowMs[0] += 15_000; // a stop-the-world pause: A can neither act nor notice
        Lease leaseB = b.acquire().orElseThrow(); // A's lease has run out
        System.out.printf("B acquired the lock at %d ms: token %d, lease ends at %d ms%n",
                nowMs[0], leaseB.token(), leaseB.expiresAtMs());
        for (var write : List.of(Map.entry("B", leaseB), Map.entry("A", leaseA))) {
            String name = write.getKey();
            WriteResult result = store.write(write.getValue().token(), name + "'s report");
            String outcome = result.accepted() ? "accepted" : "rejected (" + result.reason() + ")";
            System.out.printf("%s writes with token %d: %s%n", name, write.getValue().token(), outcome);
        }
        System.out.printf("A releases: %b (compare-and-delete left B's lock alone)%n", a.release(leaseA));
        System.out.printf("the store holds \"%s\" under token %d%n", store.data, store.highestToken);
    }
}
