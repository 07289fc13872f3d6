// A lock client that gets a fencing token with each lease, and a store that refuses older tokens.
use std::{cell::Cell, cell::RefCell, collections::hash_map::RandomState, collections::HashMap, hash::BuildHasher, hash::Hasher, rc::Rc};

type Clock = Rc<dyn Fn() -> u64>;

/// What `acquire_with_token` runs in Redis (EVALSHA, KEYS = lock, counter; ARGV = owner value, ttl).
/// One script, not SET then INCR: a client frozen between two round trips can outlive its lease and
/// then draw a newer token than its successor. The counter has no PX, so no expiry ever resets it.
#[allow(dead_code)] // the in-memory service below does the same in one step
const ACQUIRE_WITH_TOKEN_LUA: &str = r#"
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return false -- nil to the client: the lock is taken
"#;

/// The lock service's commands, behind a trait so that this file runs on std alone. All three are
/// Lua scripts in Redis: no other client's command may run between their halves.
trait LockService {
    fn acquire_with_token(&mut self, key: &str, token_key: &str, owner_value: &str, ttl_ms: u64) -> Option<i64>;
    fn compare_and_delete(&mut self, key: &str, owner_value: &str) -> bool;
    #[allow(dead_code)] // renewal: unused below, since A's renewal timer would sleep through its pause too
    fn compare_and_expire(&mut self, key: &str, owner_value: &str, ttl_ms: u64) -> bool;
}

struct MemoryLockService {
    now_ms: Clock,
    locks: HashMap<String, (String, u64)>, // key -> (owner value, expires at ms)
    counters: HashMap<String, i64>,
}
impl MemoryLockService {
    fn is_held_by(&self, key: &str, owner_value: Option<&str>) -> bool {
        self.locks.get(key).filter(|(_, expires_at_ms)| (self.now_ms)() < *expires_at_ms).map(|(owner, _)| owner.as_str()) == owner_value
    }
    fn put(&mut self, key: &str, owner_value: &str, ttl_ms: u64) -> bool {
        self.locks.insert(key.to_owned(), (owner_value.to_owned(), (self.now_ms)() + ttl_ms));
        true
    }
}
impl LockService for MemoryLockService {
    fn acquire_with_token(&mut self, key: &str, token_key: &str, owner_value: &str, ttl_ms: u64) -> Option<i64> {
        let granted = self.is_held_by(key, None) && self.put(key, owner_value, ttl_ms);
        granted.then(|| *self.counters.entry(token_key.to_owned()).and_modify(|n| *n += 1).or_insert(1))
    }
    fn compare_and_delete(&mut self, key: &str, owner_value: &str) -> bool {
        self.is_held_by(key, Some(owner_value)) && self.locks.remove(key).is_some()
    }
    fn compare_and_expire(&mut self, key: &str, owner_value: &str, ttl_ms: u64) -> bool {
        self.is_held_by(key, Some(owner_value)) && self.put(key, owner_value, ttl_ms)
    }
}

/// Unique is all it must be. std has no RNG, but RandomState keys come from OS entropy (production: getrandom).
fn random_owner_value() -> String {
    let [high, low] = [0u8; 2].map(|_| RandomState::new().build_hasher().finish());
    format!("{:08x}-{:04x}-{:04x}-{:016x}", high >> 32, (high >> 16) & 0xffff, high & 0xffff, low)
}

struct Lease {
    owner_value: String,
    token: i64,
    expires_at_ms: u64,
}

struct LockClient {
    service: Rc<RefCell<dyn LockService>>,
    now_ms: Clock,
    lock_key: &'static str,
    ttl_ms: u64,
}
impl LockClient {
    fn acquire(&self) -> Option<Lease> {
        let owner_value = random_owner_value();
        // Counted from before the request, so our idea of the expiry is never later than the server's.
        let expires_at_ms = (self.now_ms)() + self.ttl_ms;
        // The grant and the token in one round trip, as etcd hands out its revision with the grant.
        let token_key = format!("{}:token", self.lock_key);
        let token = self.service.borrow_mut().acquire_with_token(self.lock_key, &token_key, &owner_value, self.ttl_ms)?;
        Some(Lease { owner_value, token, expires_at_ms })
    }
    /// Never a plain DEL: once our lease has expired the key may be a successor's, and DEL would free it.
    fn release(&self, lease: &Lease) -> bool {
        self.service.borrow_mut().compare_and_delete(self.lock_key, &lease.owner_value)
    }
}

/// Only the resource sees writes in the order they land, so the check lives here, atomic with the write.
#[derive(Default)]
struct FencedStore {
    highest_token: i64, // 0 until the first write: INCR never returns it
    data: String,
}
impl FencedStore {
    fn write(&mut self, token: i64, data: &str) -> Result<(), String> {
        // Equal passes, so that one holder can write several times under one lease.
        if token < self.highest_token {
            return Err(format!("token {token} < {} already accepted", self.highest_token));
        }
        (self.highest_token, self.data) = (token, data.to_owned());
        Ok(())
    }
}

fn main() {
    let now_ms = Rc::new(Cell::new(0u64));
    let reader = now_ms.clone();
    let clock: Clock = Rc::new(move || reader.get());
    // 32 leases were granted before this story, so that the tokens are Kleppmann's 33 and 34.
    let counters = HashMap::from([("report:token".to_owned(), 32)]);
    let service = Rc::new(RefCell::new(MemoryLockService { now_ms: clock.clone(), locks: HashMap::new(), counters }));
    let client = || LockClient { service: service.clone(), now_ms: clock.clone(), lock_key: "report", ttl_ms: 10_000 };
    let (a, b, mut store) = (client(), client(), FencedStore::default());

    let lease_a = a.acquire().expect("the lock starts free");
    println!("A acquired the lock: token {}, lease ends at {} ms", lease_a.token, lease_a.expires_at_ms);
    now_ms.set(now_ms.get() + 15_000); // a stop-the-world pause: A can neither act nor notice
    let lease_b = b.acquire().expect("A's lease has run out");
    println!("B acquired the lock at {} ms: token {}, lease ends at {} ms", now_ms.get(), lease_b.token, lease_b.expires_at_ms);
    for (name, lease, data) in [("B", &lease_b, "B's report"), ("A", &lease_a, "A's report")] {
        let outcome = store.write(lease.token, data).map_or_else(|reason| format!("rejected ({reason})"), |()| "accepted".to_owned());
        println!("{name} writes with token {}: {outcome}", lease.token);
    }
    println!("A releases: {} (compare-and-delete left B's lock alone)", a.release(&lease_a));
    println!("the store holds {:?} under token {}", store.data, store.highest_token);
}
