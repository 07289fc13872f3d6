//! The lesson: a static, readable explanation of leases, owner values and
//! fencing tokens, with a link from every idea to the run that shows it.
//! It holds no state and decides nothing; every number in it matches a preset.

use leptos::prelude::*;

/// The whole lesson, as one article that can be mounted on its own.
#[component]
pub fn Lesson() -> impl IntoView {
    view! {
        <article class="lesson card" aria-labelledby="lesson-title">
            <h2 id="lesson-title">"The lesson: locks, leases and fencing tokens"</h2>
            <p class="lesson-lede">
                "The race shows what goes wrong. This page explains why it goes wrong, what actually fixes it, and how "
                "to talk about it in an interview or a design review. Every section ends with a run you can watch."
            </p>
            {contents()}
            {problem()}
            {mechanism()}
            {building()}
            {failures()}
            {trade_offs()}
            {misconceptions()}
            {further_reading()}
        </article>
    }
}

/// The table of contents: one in-page link per section, in reading order.
fn contents() -> impl IntoView {
    view! {
        <nav class="lesson-contents" aria-label="Lesson contents">
            <ol>
                <li><a href="#lesson-problem">"The problem, and when a lock is the wrong tool"</a></li>
                <li><a href="#lesson-mechanism">"How it works: lease, owner value, fencing token"</a></li>
                <li><a href="#lesson-build">"Building it step by step"</a></li>
                <li><a href="#lesson-failures">"Failure modes"</a></li>
                <li><a href="#lesson-tradeoffs">"Trade-offs"</a></li>
                <li><a href="#lesson-myths">"What people get wrong"</a></li>
                <li><a href="#lesson-reading">"Further reading"</a></li>
            </ol>
        </nav>
    }
}

/// One section of the lesson; its heading names it for assistive technology.
fn section(id: &'static str, title: &'static str, body: impl IntoView + 'static) -> impl IntoView {
    let heading_id = format!("{id}-title");
    let labelled_by = heading_id.clone();
    view! {
        <section id=id class="lesson-section" aria-labelledby=labelled_by>
            <h3 id=heading_id>{title}</h3>
            {body}
        </section>
    }
}

/// The closing link of a section or a failure mode. The words after the colon
/// name the run, so the link still makes sense when read out of context.
fn run_link(href: &'static str, what: &'static str) -> impl IntoView {
    view! {
        <p class="lesson-run">
            <a href=href>"See it run: " {what} <span aria-hidden="true">" →"</span></a>
        </p>
    }
}

/// An inline link to one quiz question, so the reader can commit to an answer first.
fn quiz_link(id: &'static str, what: &'static str) -> impl IntoView {
    view! { <a class="lesson-quiz" href=format!("?quiz={id}")>{what}</a> }
}

// ── 1. The problem ──────────────────────────────────────────────────────────

fn problem() -> impl IntoView {
    section("lesson-problem", "1. The problem, and when a lock is the wrong tool", view! { {problem_intro()} {wrong_tool()} })
}

fn problem_intro() -> impl IntoView {
    view! {
        <p>
            "Some jobs must happen once, by one process at a time: charge a card, run a schema migration, produce "
            "the nightly invoice batch. Inside one program a mutex settles it. Across machines there is no shared memory, so "
            "teams put a lock key in a coordinator everyone can reach: Redis, etcd, ZooKeeper or Consul."
        </p>
        <p>
            "Typical uses: stopping a fleet of autoscaled cron workers from running the same job twice, electing a single "
            "writer, and queueing access to a legacy system that has no transactions of its own."
        </p>
        <p>
            "It helps to know which kind of lock you need. An "<em>"efficiency"</em>" lock only saves duplicate work: if "
            "it fails now and then, you pay twice. A "<em>"correctness"</em>" lock protects data: if it fails once, "
            "something is corrupted. Everything below matters most for the second kind."
        </p>
    }
}

fn wrong_tool() -> impl IntoView {
    view! {
        <h4>"Reach for something else first"</h4>
        <ul>
            <li>
                <strong>"Everything lives in one relational database."</strong>" Use its transactions, or lock the row with "
                <code>"SELECT … FOR UPDATE"</code>". The database already serialises writers, with no lease to expire."
            </li>
            <li>
                <strong>"Many writers fight over individual rows."</strong>" A round trip to a lock service on every update "
                "adds latency to each write and turns the coordinator into the bottleneck. Let the database arbitrate."
            </li>
            <li>
                <strong>"The resource can check a version."</strong>" Write with "
                <code>"UPDATE … SET …, version = version + 1 WHERE id = ? AND version = ?"</code>
                " (optimistic concurrency, or compare-and-set). The loser sees zero rows changed and retries. No lock, "
                "nothing to expire, nothing to pause past. "{quiz_link("no-lock", "Try the no-lock quiz question")}"."
            </li>
            <li>
                <strong>"The work can be split."</strong>" Partition the keys so exactly one worker owns each one. With no "
                "two workers ever reaching for the same key, there is nothing to lock."
            </li>
        </ul>
        {run_link("?preset=no-lock-version", "no lock at all, just a versioned write")}
    }
}

// ── 2. How it works ─────────────────────────────────────────────────────────

fn mechanism() -> impl IntoView {
    section(
        "lesson-mechanism",
        "2. How it works: lease, owner value, fencing token",
        view! {
            {lease_and_owner()}
            {fencing_token()}
            {fencing_limits()}
            {run_link("?compare=fencing", "the GC pause with fencing off and on, side by side")}
        },
    )
}

fn lease_and_owner() -> impl IntoView {
    view! {
        <p>
            <strong>"The lease."</strong>" The lock is a key with a time to live (TTL). If the holder crashes or "
            "loses the network, the key disappears on its own once the TTL runs out, and the next worker can proceed. The "
            "TTL buys "<em>"liveness"</em>". It does not buy safety: the lock server counts time on its own clock and "
            "has no idea whether the holder is still working, frozen, or halfway through a write."
        </p>
        <p>
            <strong>"The owner value."</strong>" The key's value is a random string made fresh for each acquisition, "
            "such as a UUID. Its only job is to prove who is releasing. It has no order, so a store cannot tell from two "
            "of them which one is newer."
        </p>
        <p>
            <strong>"Release by compare-and-delete."</strong>" Releasing means: delete the key only if it still holds "
            "my value, in one atomic step (in Redis, a short Lua script). A plain "<code>"DEL"</code>" deletes whatever "
            "key is there, including the lock your successor took after your lease ran out."
        </p>
    }
}

fn fencing_token() -> impl IntoView {
    view! {
        <p>
            <strong>"The fencing token."</strong>" Each grant of the lock also hands out a number that only ever "
            "grows: 33, then 34, then 35. The worker sends its number with every write. The resource remembers the "
            "highest number it has accepted and refuses any write carrying a lower one. An "<em>"equal"</em>" number is "
            "accepted, so one holder can write several times. The check happens at the moment the write arrives, so "
            "there is no gap between checking and acting: the check is the write."
        </p>
        <p class="lesson-key">
            <strong>"The key shift: safety moves from the lock to the resource."</strong>" The lock service is no longer "
            "asked to guarantee that only one worker acts, which it cannot do for a paused worker. It is only asked for "
            "increasing numbers, which it can. Whether a write is allowed is decided by the store, when the write lands."
        </p>
    }
}

fn fencing_limits() -> impl IntoView {
    view! {
        <p>
            <strong>"Fencing orders writes; it does not stop them."</strong>" If A's stale write, with token 33, "
            "reaches the store after B was granted 34 but before B has touched the store, the store accepts it: it has "
            "not seen anything newer yet. B's first write then raises the bar. A store that also records the tokens of "
            "reads closes that gap."
        </p>
        <p>
            <strong>"The resource must be able to check."</strong>" A token column, a compare-and-set on a version, S3's "
            <code>"If-Match"</code>" or a DynamoDB condition expression all work. A plain file on NFS does not, and then "
            "fencing is simply unavailable; say so instead of trusting the lock. "
            {quiz_link("nfs", "Try the NFS quiz question")}"."
        </p>
    }
}

// ── 3. Building it ──────────────────────────────────────────────────────────

fn building() -> impl IntoView {
    section(
        "lesson-build",
        "3. Building it step by step",
        view! {
            <ol class="lesson-steps">{steps_acquire()} {steps_release()}</ol>
            <p>
                "The "<a href="#code">"code below the lesson"</a>" puts these steps together: a complete client and the "
                "store's token check, in five languages."
            </p>
            {run_link("?preset=renewal", "a watchdog renewing every ttl/3, frozen by the pause")}
        },
    )
}

fn steps_acquire() -> impl IntoView {
    view! {
        <li>
            <strong>"Make a unique owner value."</strong>" Generate a fresh random value (a UUID v4, or 128 random bits) "
            "for every acquisition. A host name or process id is not enough: two threads, or a restarted process, would share it."
        </li>
        <li>
            <strong>"Acquire atomically."</strong>" "<code>"SET lock:{resource} {owner} NX PX {ttl_ms}"</code>
            " creates the key only if it is absent and sets its expiry in the same command. A separate "<code>"SETNX"</code>
            " and "<code>"PEXPIRE"</code>" can leave a key that never expires if the client dies between the two."
        </li>
        <li>
            <strong>"Renew with a watchdog every ttl/3."</strong>" While the work is still running, extend the TTL "
            "(checking the owner value first). This keeps a slow but live holder's lease. It does not save a "
            <em>"paused"</em>" process: the watchdog lives in the same process and freezes with it. After the resume, "
            "its first renewal fails, and it races the write; in measurements the write came first in 3 runs out of 4."
        </li>
    }
}

fn steps_release() -> impl IntoView {
    view! {
        <li>
            <strong>"Release by compare-and-delete."</strong>" Run a Lua script that deletes the key only if its value "
            "is still yours; it returns 1 or 0. A 0 means you had already lost the lock, which is worth logging."
        </li>
        <li>
            <strong>"Take a fencing token and send it with every write."</strong>" After acquiring, "
            <code>"INCR fence:{resource}"</code>" gives the next number. Attach it to each write; the store refuses "
            "any token below the highest it has accepted. With plain Redis that is a second round trip, not part of the "
            "acquire, and the counter is only as durable as the Redis node."
        </li>
        <li>
            <strong>"Back off with jitter."</strong>" When the lock is taken, wait a random time drawn from an "
            "exponentially growing window (with a cap) before trying again, so the losers do not all retry in lockstep."
        </li>
        <li>
            <strong>"Monitor hold durations."</strong>" Record how long each lease is held, and count the leases that "
            "expired before their release. A rising count means tasks are slower than the TTL assumes, or something is pausing."
        </li>
    }
}

// ── 4. Failure modes ────────────────────────────────────────────────────────

fn failures() -> impl IntoView {
    section(
        "lesson-failures",
        "4. Failure modes",
        view! {
            <p>"Each of these is a preset. Every run is deterministic: the same seed gives the same story."</p>
            {gc_pause()} {check_then_write()} {delayed_packet()} {redis_failover()}
            {redlock_clock_jump()} {holder_crash()} {naive_del()}
        },
    )
}

fn gc_pause() -> impl IntoView {
    view! {
        <h4>"A stop-the-world pause"</h4>
        <p>
            "A holds a 10 s lease with token 33 and freezes for 15 s (a full GC, a VM migration, a throttled container) "
            "just before its write. At 10 s the lease expires and B acquires the lock with token 34 and writes. At 15 s A "
            "wakes, still sure it holds the lock, and writes with 33. A plain store accepts it and B's data is gone; a "
            "fencing store has already seen 34 and refuses 33."
        </p>
        <p>
            "Real Redis behaves exactly like this. It honours "<code>"PX"</code>" to within a few milliseconds (B got the "
            "lock 1000–1004 ms after A's 1000 ms lease). With A stopped for 2 s on a 1 s lease, B wrote with token 2; A "
            "resumed and wrote with token 1, which a plain store accepted and a checking store rejected."
        </p>
        {run_link("?preset=gc-pause", "the GC pause, 10 s lease against a 15 s pause")}
        <p>
            "A consensus lock does not change the story, only the numbers: etcd grants no lease under 2 s, expires "
            "leases up to 0.5 s late (it checks every 500 ms), and its revisions only grow but skip values, so never "
            "assume the next token is the last plus one."
        </p>
        {run_link("?preset=consensus-gc-pause", "the GC pause against an etcd-like lock")}
    }
}

fn check_then_write() -> impl IntoView {
    view! {
        <h4>"Checking the lease just before writing"</h4>
        <p>
            "A asks the lock service whether the lock is still its own, hears yes, and then pauses between the answer "
            "and the write. Any check made by the client is out of date by the time the write lands. "
            {quiz_link("check-then-write", "Try the check-then-write quiz question")}"."
        </p>
        {run_link("?preset=check-then-write", "a pause between the lease check and the write")}
    }
}

fn delayed_packet() -> impl IntoView {
    view! {
        <h4>"A delayed packet"</h4>
        <p>
            "No pause at all: A sends its write in time, but the packet sits in the network for 15 s and reaches the "
            "store after B has taken over. A did nothing wrong on its side. Only a check at the store can catch this."
        </p>
        {run_link("?preset=delayed-write", "a write delayed 15 s in the network")}
    }
}

fn redis_failover() -> impl IntoView {
    view! {
        <h4>"Redis failover with asynchronous replication"</h4>
        <p>
            "The primary grants A the lock and token 33, then crashes before replicating either. The promoted replica "
            "has never seen the key or the counter, so it grants B the lock and token 33 again. Equal tokens are "
            "accepted, so the fencing store lets both through: fencing is fooled. A token is only as good as a "
            "counter that never goes backwards. "{quiz_link("set-nx-token", "Try the SET NX token quiz question")}"."
        </p>
        {run_link("?preset=redis-failover", "a failover that hands out token 33 twice")}
    }
}

fn redlock_clock_jump() -> impl IntoView {
    view! {
        <h4>"Redlock and a clock jump"</h4>
        <p>
            "Redlock takes the lock on a majority of 5 independent masters (3 of 5) and treats it as valid for "
            <code>"ttl − elapsed − drift"</code>". A holds 3 masters; one of them has its clock jump ahead, so A's key "
            "there expires early, and B gathers its own majority of 3. Both hold the lock. Redlock's value is random, "
            "so there is nothing to fence with. "{quiz_link("redlock", "Try the Redlock quiz question")}"."
        </p>
        {run_link("?preset=redlock-clock-jump", "Redlock with one master's clock jumping")}
    }
}

fn holder_crash() -> impl IntoView {
    view! {
        <h4>"The holder crashes"</h4>
        <p>
            "A crashes while holding the lock. Nothing releases it, so B waits out the whole 10 s lease. The TTL is "
            "what restores liveness, and only after it runs out: a longer lease means a longer stall after every real "
            "crash. "{quiz_link("crash", "Try the holder-crash quiz question")}"."
        </p>
        {run_link("?preset=holder-crash", "a holder that crashes and a 10 s wait")}
    }
}

fn naive_del() -> impl IntoView {
    view! {
        <h4>"A plain DEL after the lease expired"</h4>
        <p>
            "A wakes after its lease expired, finishes, and releases with "<code>"DEL"</code>". That deletes B's lock, "
            "and a third worker, C, acquires it while B is still working. Measured on Redis: A's "<code>"DEL"</code>
            " removed B's lock and a third client got in; the compare-and-delete script returned 0 and left B's lock "
            "alone. "{quiz_link("naive-del", "Try the naive DEL quiz question")}"."
        </p>
        {run_link("?preset=naive-del", "a naive DEL that lets a third worker in")}
    }
}

// ── 5. Trade-offs ───────────────────────────────────────────────────────────

fn trade_offs() -> impl IntoView {
    section(
        "lesson-tradeoffs",
        "5. Trade-offs",
        view! {
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="lesson-tradeoffs-caption">
                <table class="lesson-table">
                    <caption id="lesson-tradeoffs-caption">"Ways to keep two workers from clobbering each other"</caption>
                    {trade_off_head()}
                    <tbody>{rows_redis()} {rows_consensus()} {rows_no_lock()}</tbody>
                </table>
            </div>
            <p class="lesson-note">
                "Latencies were measured on loopback with Redis 7.0 and etcd 3.4. Across a datacenter add a network round "
                "trip (about 0.2–0.5 ms); across regions, tens of milliseconds."
            </p>
            {run_link("?preset=consensus-gc-pause", "the GC pause against a consensus lock, with fencing")}
        },
    )
}

fn trade_off_head() -> impl IntoView {
    view! {
        <thead>
            <tr>
                <th scope="col">"Approach"</th>
                <th scope="col">"What it guarantees"</th>
                <th scope="col">"Latency"</th>
                <th scope="col">"Gives a fencing token?"</th>
                <th scope="col">"Use it when"</th>
            </tr>
        </thead>
    }
}

fn rows_redis() -> impl IntoView {
    view! {
        <tr>
            <th scope="row"><code>"SET NX PX"</code>" on one Redis, Lua release"</th>
            <td>"One holder at a time, as long as nothing pauses, is delayed or fails over. Safe release. A failover can lose the lock."</td>
            <td>"Acquire p50 ≈ 0.06 ms on loopback, ≈ 0.2–0.5 ms across a datacenter."</td>
            <td>"No: the value is random. An "<code>"INCR"</code>" counter adds one, at a second round trip, and a failover can lose it."</td>
            <td>"An efficiency lock: a duplicate only wastes work (cron de-duplication, cache refills)."</td>
        </tr>
        <tr>
            <th scope="row">"Redlock (5 masters, quorum 3)"</th>
            <td>"Survives the loss of a minority of masters, but still rests on bounded pauses and clock drift; valid for ttl − elapsed − drift."</td>
            <td>"Not measured here: one round to all 5 masters in parallel, waiting for at least 3 replies, so the slower masters set the pace."</td>
            <td>"No: the value is random, so there is nothing to fence with."</td>
            <td>"An efficiency lock that must survive one Redis node failing. Not for correctness."</td>
        </tr>
    }
}

fn rows_consensus() -> impl IntoView {
    view! {
        <tr>
            <th scope="row">"Consensus lock (etcd / ZooKeeper / Consul)"</th>
            <td>"The lock survives a leader crash. Still a lease, so a paused holder can still write: safe only with a store that checks the token."</td>
            <td>"etcd lock + unlock p50 ≈ 1.9 ms, p99 ≈ 5–7 ms on loopback. Minimum lease 2 s; expiry up to 0.5 s late."</td>
            <td>"Yes: etcd's revision or ZooKeeper's sequential node number. Monotonic, with gaps."</td>
            <td>"A correctness lock: a duplicate would corrupt money or state (settlements, leader election, migrations)."</td>
        </tr>
    }
}

fn rows_no_lock() -> impl IntoView {
    view! {
        <tr>
            <th scope="row">"Optimistic concurrency (conditional write on a version)"</th>
            <td>"A write lands only if the version is still the one the writer read; the loser re-reads and retries. No lease, no pause window."</td>
            <td>"No extra service: one conditional write. Under contention the loser pays a retry."</td>
            <td>"Not needed: the version does the job."</td>
            <td>"The resource supports a conditional write (SQL "<code>"WHERE version = ?"</code>", S3 "<code>"If-Match"</code>", DynamoDB conditions)."</td>
        </tr>
        <tr>
            <th scope="row">"Partitioning the work"</th>
            <td>"One owner per key by construction, so no contention at all."</td>
            <td>"Nothing on the write path; the cost moves to rebalancing ownership."</td>
            <td>"Not per write. Handing a partition to a new owner is itself a lease problem, where an epoch number acts as the token."</td>
            <td>"The work divides naturally by key: tenant, account, shard."</td>
        </tr>
    }
}

// ── 6. What people get wrong ────────────────────────────────────────────────

fn misconceptions() -> impl IntoView {
    section(
        "lesson-myths",
        "6. What people get wrong",
        view! {
            <dl class="lesson-myths">{myths_lock()} {myths_fixes()}</dl>
            {run_link("?compare=fencing", "fencing off and on, side by side")}
        },
    )
}

fn myths_lock() -> impl IntoView {
    view! {
        <dt>"“We use Redis, so we have mutual exclusion.”"</dt>
        <dd>
            "Only while nothing pauses, nothing is delayed and no node fails over, and a distributed system promises "
            "none of those. In the GC pause run Redis does its job perfectly: it expires A's key on time and grants it "
            "to B. The overlap exists only in A's belief. "
            {quiz_link("gc-pause", "Try the GC pause quiz question")}" or "
            <a href="?preset=gc-pause">"watch the GC pause run"</a>"."
        </dd>
        <dt>"“A longer lease is safer.”"</dt>
        <dd>
            "It makes the bad case rarer, not impossible: a 40 s lease survives a 15 s pause and loses to a 45 s one, "
            "and nothing bounds how long a pause can be. Meanwhile every real crash now blocks everyone for 40 s "
            "instead of 10. "{quiz_link("lease-x4", "Try the longer-lease quiz question")}" or "
            <a href="?compare=lease-x4">"compare the 10 s and 40 s leases side by side"</a>"."
        </dd>
    }
}

fn myths_fixes() -> impl IntoView {
    view! {
        <dt>"“Renewal fixes it.”"</dt>
        <dd>
            "Renewal keeps a slow but running holder's lease alive. A paused process cannot renew, because its "
            "watchdog is paused too; once the pause outlasts what is left of the lease, the lock is gone. "
            {quiz_link("renewal", "Try the renewal quiz question")}" or "
            <a href="?preset=renewal">"watch the renewal run"</a>"."
        </dd>
        <dt>"“Just make it idempotent.”"</dt>
        <dd>
            "Idempotency makes repeating the same operation harmless; it says nothing about an old operation. If A "
            "writes a value it computed before B's update, applying it once or ten times still erases B's work. "
            "Fencing is what refuses the stale write. "{quiz_link("idempotent", "Try the idempotency quiz question")}"."
        </dd>
    }
}

// ── 7. Further reading ──────────────────────────────────────────────────────

fn further_reading() -> impl IntoView {
    section("lesson-reading", "7. Further reading", view! { <ul class="lesson-reading">{reading_critique()} {reading_services()}</ul> })
}

fn reading_critique() -> impl IntoView {
    view! {
        <li>
            <a href="https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html" rel="noopener">
                "Martin Kleppmann, “How to do distributed locking” (2016)"
            </a>
            " — the GC pause story with tokens 33 and 34, and why any lock built on timing needs fencing to be safe."
        </li>
        <li>
            <a href="https://redis.io/docs/latest/develop/use/patterns/distributed-locks/" rel="noopener">
                "Redis documentation: distributed locks with Redis"
            </a>
            " — the single-instance pattern, the compare-and-delete release script and Redlock, in the authors' words."
        </li>
        <li>
            <a href="https://research.google/pubs/the-chubby-lock-service-for-loosely-coupled-distributed-systems/" rel="noopener">
                "Mike Burrows, “The Chubby lock service for loosely-coupled distributed systems” (OSDI 2006)"
            </a>
            " — Google's lock service; its “sequencer” is a fencing token that holders pass to the servers they call."
        </li>
    }
}

fn reading_services() -> impl IntoView {
    view! {
        <li>
            <a href="https://zookeeper.apache.org/doc/current/recipes.html#sc_recipes_Locks" rel="noopener">
                "Apache ZooKeeper recipes: locks"
            </a>
            " — the ephemeral sequential node recipe, whose sequence number both orders waiters and serves as a token."
        </li>
        <li>
            <a href="https://etcd.io/docs/v3.5/dev-guide/api_concurrency_reference_v3/" rel="noopener">
                "etcd concurrency API reference (Lock and Unlock)"
            </a>
            " — locks tied to a lease; the lock key's revision is the number to hand to the resource."
        </li>
    }
}
