//! The properties a run can keep or break, by name: the property tests, the
//! explorer and the command line all check exactly these.

use crate::trace::Counts;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Property {
    /// No accepted write replaced data written under a newer grant.
    NoStaleOverwrite,
    /// No worker took the lock while another still believed it held it.
    MutualExclusion,
    /// The store never refused the worker that held the lock last.
    NoRightfulWriteRejected,
    /// The run ends (within its bound) with nobody holding the lock.
    LockEventuallyFree,
    /// No accepted write was computed from data that a newer accepted
    /// write had already replaced (defined with or without a lock).
    NoLostUpdate,
    /// No job's work was done again after its first result did not land
    /// (refused, or its lock lost first): a retried job redoes it.
    WorkDoneOnce,
}

impl Property {
    pub const ALL: [Property; 6] = [
        Property::NoStaleOverwrite,
        Property::MutualExclusion,
        Property::NoRightfulWriteRejected,
        Property::LockEventuallyFree,
        Property::NoLostUpdate,
        Property::WorkDoneOnce,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Property::NoStaleOverwrite => "no_stale_overwrite",
            Property::MutualExclusion => "mutual_exclusion",
            Property::NoRightfulWriteRejected => "no_rightful_write_rejected",
            Property::LockEventuallyFree => "lock_eventually_free",
            Property::NoLostUpdate => "no_lost_update",
            Property::WorkDoneOnce => "work_done_once",
        }
    }

    pub fn parse(name: &str) -> Option<Property> {
        Property::ALL.into_iter().find(|property| property.name() == name || property.name().replace('_', "-") == name)
    }

    /// What breaking it looks like, for people: a run's heading.
    pub fn broken(self) -> &'static str {
        match self {
            Property::NoStaleOverwrite => "a stale write overwrites data written under a newer grant",
            Property::MutualExclusion => "two workers believe they hold the lock at once",
            Property::NoRightfulWriteRejected => "the store refuses the worker that holds the lock last",
            Property::LockEventuallyFree => "the run ends with somebody still holding the lock",
            Property::NoLostUpdate => "an accepted write was computed from data a newer write had already replaced",
            Property::WorkDoneOnce => "a job's work is done again after its first result did not land (refused, or its lock lost)",
        }
    }

    /// What keeping it means, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Property::NoStaleOverwrite => "no write overwrites data written under a newer grant",
            Property::MutualExclusion => "no two workers believe they hold the lock at once",
            Property::NoRightfulWriteRejected => "the store never refuses the worker that holds the lock last",
            Property::LockEventuallyFree => "the run ends with nobody holding the lock",
            Property::NoLostUpdate => "no accepted write was computed from data a newer write had already replaced",
            Property::WorkDoneOnce => "no job's work is done again after its first result did not land (refused, or its lock lost)",
        }
    }

    pub fn holds(self, counts: &Counts) -> bool {
        match self {
            Property::NoStaleOverwrite => counts.tally.stale_overwrites == 0,
            Property::MutualExclusion => counts.tally.mutual_exclusion_violations == 0,
            Property::NoRightfulWriteRejected => counts.tally.rightful_writes_rejected == 0,
            Property::LockEventuallyFree => !counts.truncated && counts.lock_holder_at_end.is_none(),
            Property::NoLostUpdate => counts.work.lost_updates == 0,
            Property::WorkDoneOnce => counts.work.work_redone == 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for property in Property::ALL {
            assert_eq!(Property::parse(property.name()), Some(property));
        }
        assert_eq!(Property::parse("no-stale-overwrite"), Some(Property::NoStaleOverwrite));
        assert_eq!(Property::parse("safety"), None);
    }

    #[test]
    fn the_classic_run_breaks_exactly_the_properties_it_should() {
        let counts = crate::run_counts(&crate::Scenario::default()).unwrap();
        let broken: Vec<&str> = Property::ALL.into_iter().filter(|property| !property.holds(&counts)).map(Property::name).collect();
        assert_eq!(broken, ["no_stale_overwrite", "mutual_exclusion", "no_lost_update"]);
    }
}
