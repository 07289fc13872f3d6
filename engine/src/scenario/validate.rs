//! A scenario's checks: every field, every fault, all problems at once.

use super::*;
use crate::actor::STORY_WORKERS_MAX;

/// Reads a JSON list of faults, refusing it at its `FAULTS_MAX + 1`-th
/// element: a pasted list of a million faults is turned away in microseconds
/// instead of being read whole (seconds, and memory) only for `validate` to
/// refuse it.
pub(super) fn faults_at_most_max<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<Fault>, D::Error> {
    struct Faults;
    impl<'de> serde::de::Visitor<'de> for Faults {
        type Value = Vec<Fault>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a list of at most {FAULTS_MAX} faults")
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Fault>, A::Error> {
            let mut faults = Vec::new();
            while let Some(fault) = seq.next_element()? {
                if faults.len() == FAULTS_MAX {
                    let problem = format!("at most {FAULTS_MAX} faults, not more");
                    return Err(serde::de::Error::custom(problem));
                }
                faults.push(fault);
            }
            Ok(faults)
        }
    }
    deserializer.deserialize_seq(Faults)
}

impl Scenario {
    /// Checks every field; lists all problems at once rather than the first.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let mut problems = Vec::new();
        // The sentence is built only for a problem: a valid scenario (every
        // run of a sweep) allocates nothing here.
        let mut check = |ok: bool, problem: &dyn Fn() -> String| {
            if !ok {
                problems.push(problem())
            }
        };
        let workers_max = if self.fleet.is_some() { super::FLEET_WORKERS_MAX } else { STORY_WORKERS_MAX };
        check((2..=workers_max).contains(&self.workers), &|| format!("workers must be 2–{workers_max}, not {}", self.workers));
        check((1..=TTL_MS_MAX).contains(&self.ttl_ms), &|| format!("ttl_ms must be 1–{TTL_MS_MAX}, not {}", self.ttl_ms));
        check((1..=FIRST_TOKEN_MAX).contains(&self.first_token), &|| format!("first_token must be 1–2^50, not {}", self.first_token));
        check(self.start_gap_ms <= TIME_MS_MAX, &|| format!("start_gap_ms must be at most {TIME_MS_MAX}"));
        check(self.work_ms <= TIME_MS_MAX, &|| format!("work_ms must be at most {TIME_MS_MAX}"));
        check((1..=WRITES_PER_HOLD_MAX).contains(&self.writes_per_hold), &|| {
            format!("writes_per_hold must be 1–{WRITES_PER_HOLD_MAX}, not {}", self.writes_per_hold)
        });
        check(self.latency_us_min <= self.latency_us_max && self.latency_us_max <= LATENCY_US_MAX, &|| {
            format!(
                "latency must satisfy latency_us_min ≤ latency_us_max ≤ {LATENCY_US_MAX} (got {}–{})",
                self.latency_us_min, self.latency_us_max
            )
        });
        check(self.backoff_ms_min >= 1 && self.backoff_ms_min <= self.backoff_ms_max && self.backoff_ms_max <= TIME_MS_MAX, &|| {
            format!("backoff must satisfy 1 ≤ backoff_ms_min ≤ backoff_ms_max ≤ {TIME_MS_MAX}")
        });
        check((1..=ACQUIRE_ATTEMPTS_MAX).contains(&self.acquire_attempts_max), &|| {
            format!("acquire_attempts_max must be 1–{ACQUIRE_ATTEMPTS_MAX}")
        });
        check(self.job_retries_max <= JOB_RETRIES_MAX, &|| {
            format!("job_retries_max must be 0–{}, not {}", JOB_RETRIES_MAX, self.job_retries_max)
        });
        let events_max = if self.fleet.is_some() { super::FLEET_EVENTS_MAX } else { EVENTS_MAX };
        check((1..=events_max).contains(&self.events_max), &|| format!("events_max must be 1–{events_max}"));
        for problem in self.fleet.map(|fleet| fleet.problems()).unwrap_or_default() {
            check(false, &|| problem.clone());
        }
        check((1..=TIME_MS_MAX).contains(&self.request_timeout_ms), &|| format!("request_timeout_ms must be 1–{TIME_MS_MAX}"));
        check(self.replication_lag_ms <= TIME_MS_MAX, &|| format!("replication_lag_ms must be at most {TIME_MS_MAX}"));
        check(self.failover_ms <= TIME_MS_MAX, &|| format!("failover_ms must be at most {TIME_MS_MAX}"));
        check(self.lock_service.family().client().conditional == (self.store == StoreKind::Versioned), &|| {
            "without a lock, only a versioned store (conditional writes) keeps writers apart; and a versioned store needs no lock: choose both or neither".to_string()
        });
        check(self.release != Release::NaiveDel || self.lock_service.spec().options.naive_del, &|| {
            format!("a naive DEL does not apply to {}: its client releases only its own lock", self.lock_service.label())
        });
        check(self.lock_service.nearest_ttl_ms(self.ttl_ms) == self.ttl_ms, &|| {
            let (min_ms, max_ms) = (self.lock_service.nearest_ttl_ms(0), self.lock_service.nearest_ttl_ms(u64::MAX));
            format!("{} refuses a session TTL outside {min_ms}–{max_ms} ms", self.lock_service.label())
        });
        check(!self.renewal || self.lock_service.family().client().renewal_allowed, &|| {
            "Redlock has no renewal in this model: turn renewal off".to_string()
        });
        check(self.faults.len() <= FAULTS_MAX, &|| format!("at most {FAULTS_MAX} faults, not {}", self.faults.len()));
        for (index, fault) in self.faults.iter().enumerate().take(FAULTS_MAX) {
            if let Err(problem) = self.validate_fault(fault) {
                problems.push(format!("fault {}: {problem}", index + 1));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ScenarioError { problems })
        }
    }

    /// The other end of a cut link: an actor of this scenario, not the node itself.
    fn validate_peer(&self, node: Actor, from: Actor) -> Result<(), String> {
        let exists = match from {
            Actor::Worker(index) => index < self.workers,
            Actor::LockNode(index) => index < self.lock_service.nodes(),
            Actor::Store => true,
        };
        if from == node {
            return Err(format!("{node} cannot be cut off from itself"));
        }
        if !exists {
            return Err(format!("there is no {from} to cut {node} off from"));
        }
        Ok(())
    }

    fn validate_fault(&self, fault: &Fault) -> Result<(), String> {
        let target = fault.target();
        let nodes = self.lock_service.nodes();
        let strikes = fault.kind().spec().strikes;
        match target {
            Actor::Worker(index) if index >= self.workers => {
                return Err(format!("there is no {target} in a scenario with {} workers", self.workers))
            }
            Actor::LockNode(index) if index >= nodes => {
                return Err(format!("there is no {target}: this lock service has {}", crate::count_of(nodes as u64, "node", "nodes")))
            }
            _ if !strikes.may_strike(target) => return Err(format!("this fault cannot strike {target}")),
            _ => {}
        }
        if let Fault::Pause { when: When::BeforeWrite(n), .. } | Fault::DelayWrite { write: n, .. } = fault {
            if !(1..=self.writes_per_hold).contains(n) {
                return Err(format!(
                    "write {n} does not exist: each holder makes {}",
                    crate::count_of(u64::from(self.writes_per_hold), "write", "writes")
                ));
            }
        }
        if let Some(index) = fault.after_event().filter(|index| *index >= self.events_max) {
            return Err(format!("event {index} never happens: a run stops after {} events", self.events_max));
        }
        if let Fault::Partition { node, from: Some(from), .. } = *fault {
            self.validate_peer(node, from)?;
        }
        if let Fault::Pause { when: When::BeforeSend(0), .. } = fault {
            return Err("messages count from 1".to_string());
        }
        if let Fault::ClockDrift { ppm, .. } = fault {
            if ppm.unsigned_abs() > DRIFT_PPM_MAX.unsigned_abs() {
                return Err(format!("clock drift must be within ±{DRIFT_PPM_MAX} ppm"));
            }
        }
        if !self.allows(fault.kind()) {
            return Err(format!("{} does not apply to this lock service: {}", fault.kind().label(), fault.kind().why_not()));
        }
        if fault.at_ms() > TIME_MS_MAX || fault.length_ms() > TIME_MS_MAX {
            return Err(format!("times and lengths must be at most {TIME_MS_MAX} ms"));
        }
        Ok(())
    }
}
