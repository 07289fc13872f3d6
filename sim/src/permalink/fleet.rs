//! A fleet's link: `workers=16&span_ms=86400000&pauses=throttled_container
//! &ttl_ms=10000&fencing=off&seed=1`, read as forgivingly as a story's (what
//! cannot be used is ignored and said), written with only what differs from
//! the default fleet and the seed always.

use super::{choices, millis, on_off, pairs, shown, story, switch, whole};
use crate::fleet::{base, FleetReport};
use crate::pauses::{PauseLaw, PauseShape, SHAPES};
use crate::scenario::{Scenario, FLEET_WORKERS_MAX, SPAN_MS_MAX, TTL_MS_MAX};

/// Everything a fleet view shows, as its link carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FleetLink {
    pub workers: u8,
    pub span_ms: u64,
    pub pauses: PauseShape,
    pub ttl_ms: u64,
    /// Each job's work between the grant and the write.
    pub work_ms: u64,
    pub fencing: bool,
    /// Renewal every ttl/3 while a worker holds the lock.
    pub renewal: bool,
    pub seed: u64,
}

/// The default fleet: sixteen workers for a simulated day in CPU-throttled
/// containers, a 10 s lease, no fencing. (An hour of JVM pauses never beats a
/// 10 s lease at the default seed: the longest pause is 8.1 s.)
pub const DEFAULT_FLEET: FleetLink = FleetLink {
    workers: 16,
    span_ms: 86_400_000,
    pauses: PauseShape::ThrottledContainer,
    ttl_ms: 10_000,
    work_ms: 200,
    fencing: false,
    renewal: false,
    seed: 1,
};

/// The fleet the lesson's figure and the quiz's question measure "rarer, not
/// impossible" on: the default fleet with eight workers (a day of
/// throttled containers takes about 1.4 s in the browser)...
pub const LESSON_FLEET: FleetLink = FleetLink { workers: 8, ..DEFAULT_FLEET };
/// ...at the story's 10 s lease and four times it.
pub const QUADRUPLED_TTLS_MS: [u64; 2] = [10_000, 40_000];

/// The longest work a fleet's job may take.
pub const FLEET_WORK_MS_MAX: u64 = 600_000;

impl Default for FleetLink {
    fn default() -> FleetLink {
        DEFAULT_FLEET
    }
}

impl FleetLink {
    pub fn scenario(&self) -> Scenario {
        let base = base(self.workers, self.span_ms, self.pauses);
        Scenario { ttl_ms: self.ttl_ms, work_ms: self.work_ms, fencing: self.fencing, renewal: self.renewal, seed: self.seed, ..base }
    }

    /// The pause shape's id in a link: a built-in one's, or "custom".
    pub fn pauses_id(&self) -> &'static str {
        self.pauses.facts().map_or("custom", |facts| facts.id)
    }
}

/// The custom figures' keys, in a link's units (ms; the tail in thousandths).
const CUSTOM_KEYS: [&str; 4] = ["median_ms", "p99_ms", "tail_milli", "per_hour"];

/// Reads a fleet's link. Never panics; the notices say what was ignored.
pub fn parse(query: &str) -> (FleetLink, Vec<String>) {
    let mut notices = Vec::new();
    let mut link = DEFAULT_FLEET;
    // A custom shape starts from the default shape's figures; the last
    // `pauses=` wins.
    let (mut custom, mut custom_law) = (false, DEFAULT_FLEET.pauses.law());
    for (key, value) in pairs(query, &mut notices) {
        let read = match key.as_str() {
            "pauses" if value == "custom" => {
                custom = true;
                Ok(())
            }
            "pauses" => match PauseShape::built_in(&value) {
                Some(shape) => {
                    (link.pauses, custom) = (shape, false);
                    Ok(())
                }
                None => Err(format!("expected {} or custom", choices(SHAPES.iter().map(|facts| facts.id)))),
            },
            key if CUSTOM_KEYS.contains(&key) => set_custom(&mut custom_law, key, &value),
            _ => apply(&mut link, &key, &value),
        };
        if let Err(reason) = read {
            notices.push(format!("ignored {}: {reason}", shown(&format!("{key}={value}"))));
        }
    }
    if custom {
        match custom_law.problem() {
            None => link.pauses = PauseShape::Custom(custom_law),
            Some(problem) => notices.push(format!("ignored the custom pauses: {problem}")),
        }
    }
    if let Err(error) = link.scenario().validate() {
        notices.push(format!("showing the default fleet: {error}"));
        link = DEFAULT_FLEET;
    }
    (link, notices)
}

fn apply(link: &mut FleetLink, key: &str, value: &str) -> Result<(), String> {
    match key {
        "workers" => {
            let workers =
                whole(value).and_then(|workers| u8::try_from(workers).ok()).filter(|workers| (2..=FLEET_WORKERS_MAX).contains(workers));
            link.workers = workers.ok_or(format!("a fleet has 2 to {FLEET_WORKERS_MAX} workers"))?;
        }
        "span_ms" => link.span_ms = millis(value, 1_000..=SPAN_MS_MAX, "the span")?,
        "ttl_ms" => link.ttl_ms = millis(value, 1..=TTL_MS_MAX, "the lease")?,
        "work_ms" => link.work_ms = millis(value, 0..=FLEET_WORK_MS_MAX, "the work")?,
        "fencing" => link.fencing = switch(value)?,
        "renewal" => link.renewal = switch(value)?,
        "seed" => link.seed = whole(value).ok_or(format!("the seed is a whole number from 0 to {}", u64::MAX))?,
        // The page's own keys, read by the page; the fingerprint is
        // checked once the fleet has run (`fingerprint_notice`).
        "view" | "embed" | "theme" | super::story::KEY => {}
        _ => return Err("a fleet's link has no such setting".to_string()),
    }
    Ok(())
}

fn set_custom(law: &mut PauseLaw, key: &str, value: &str) -> Result<(), String> {
    let number = whole(value).ok_or("not a whole number")?;
    let ms_to_us = |ms: u64| ms.checked_mul(1000).ok_or("too large");
    match key {
        "median_ms" => law.median_us = ms_to_us(number)?,
        "p99_ms" => law.p99_us = ms_to_us(number)?,
        "tail_milli" => law.tail_exponent_milli = u32::try_from(number).map_err(|_| "too large")?,
        _ => law.per_hour = u32::try_from(number).map_err(|_| "too large")?,
    }
    Ok(())
}

/// The fleet's link: no leading '?', the seed always, then what differs.
pub fn to_query(link: &FleetLink) -> String {
    let mut pairs = vec![("seed", link.seed.to_string())];
    let mut differs = |key: &'static str, value: String, default: String| {
        if value != default {
            pairs.push((key, value));
        }
    };
    let default = DEFAULT_FLEET;
    differs("workers", link.workers.to_string(), default.workers.to_string());
    differs("span_ms", link.span_ms.to_string(), default.span_ms.to_string());
    differs("pauses", link.pauses_id().to_string(), default.pauses_id().to_string());
    differs("ttl_ms", link.ttl_ms.to_string(), default.ttl_ms.to_string());
    differs("work_ms", link.work_ms.to_string(), default.work_ms.to_string());
    differs("fencing", on_off(link.fencing), on_off(default.fencing));
    differs("renewal", on_off(link.renewal), on_off(default.renewal));
    if let PauseShape::Custom(law) = link.pauses {
        let figures = [law.median_us / 1000, law.p99_us / 1000, u64::from(law.tail_exponent_milli), u64::from(law.per_hour)];
        pairs.extend(CUSTOM_KEYS.into_iter().zip(figures.map(|figure| figure.to_string())));
    }
    pairs.iter().map(|(key, value)| format!("{key}={value}")).collect::<Vec<_>>().join("&")
}

/// A fleet link's fingerprint (`fp=`): a hash of the whole report, the jobs
/// run, the counters (as a story's fingerprint counts them) and the
/// incidents: `9f0c2b1a_15125_3.0.0.15125_3`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FleetStory {
    hash: u32,
    jobs: u32,
    counts: [u32; 4],
    incidents: u32,
}

impl FleetStory {
    pub fn of(report: &FleetReport) -> FleetStory {
        FleetStory {
            // The top half of the report's own 64-bit fingerprint.
            hash: (report.fingerprint() >> 32) as u32,
            jobs: report.jobs,
            counts: [report.zombie_writes, report.stale_overwrites, report.rejected_writes, report.accepted_writes],
            incidents: report.incidents_total,
        }
    }

    pub fn to_text(&self) -> String {
        format!("{:08x}_{}_{}_{}", self.hash, self.jobs, story::counts_text(&self.counts), self.incidents)
    }

    pub fn parse(text: &str) -> Option<FleetStory> {
        let parts: Vec<&str> = text.split('_').collect();
        let [hash, jobs, counts, incidents] = parts[..] else { return None };
        Some(FleetStory {
            hash: (hash.len() == 8).then(|| u32::from_str_radix(hash, 16).ok()).flatten()?,
            jobs: whole(jobs)?.try_into().ok()?,
            counts: story::parse_counts(counts)?,
            incidents: whole(incidents)?.try_into().ok()?,
        })
    }

    /// The first way `now` differs from what the author saw, in words.
    pub fn first_difference(&self, now: &FleetStory) -> Option<String> {
        if self.jobs != now.jobs {
            return Some(format!("its author's fleet ran {} jobs; this one runs {}", self.jobs, now.jobs));
        }
        if let Some(difference) = story::counts_difference(&self.counts, &now.counts, "fleet") {
            return Some(difference);
        }
        if self.incidents != now.incidents {
            let then = crate::count_of(u64::from(self.incidents), "incident", "incidents");
            return Some(format!("its author saw {then}; this fleet has {}", now.incidents));
        }
        (self.hash != now.hash)
            .then(|| "the jobs, the counters and the incidents are the same, but the pauses or their timing differ".to_string())
    }
}

/// The notice for a fleet link whose fingerprint `text` is not its report's
/// (None when it is): read once the fleet has run, as the page has it then.
pub fn fingerprint_notice(text: &str, report: &FleetReport) -> Option<String> {
    let Some(then) = FleetStory::parse(text) else {
        return Some(format!("ignored fp={}: not a fingerprint Fencing Lab writes", shown(text)));
    };
    then.first_difference(&FleetStory::of(report)).map(story::changed)
}

#[cfg(test)]
mod tests;
