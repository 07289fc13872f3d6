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
}

impl Property {
    pub const ALL: [Property; 4] =
        [Property::NoStaleOverwrite, Property::MutualExclusion, Property::NoRightfulWriteRejected, Property::LockEventuallyFree];

    pub fn name(self) -> &'static str {
        match self {
            Property::NoStaleOverwrite => "no_stale_overwrite",
            Property::MutualExclusion => "mutual_exclusion",
            Property::NoRightfulWriteRejected => "no_rightful_write_rejected",
            Property::LockEventuallyFree => "lock_eventually_free",
        }
    }

    pub fn parse(name: &str) -> Option<Property> {
        Property::ALL.into_iter().find(|property| property.name() == name || property.name().replace('_', "-") == name)
    }

    /// What keeping it means, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Property::NoStaleOverwrite => "no write overwrites data written under a newer grant",
            Property::MutualExclusion => "no two workers believe they hold the lock at once",
            Property::NoRightfulWriteRejected => "the store never refuses the worker that holds the lock last",
            Property::LockEventuallyFree => "the run ends with nobody holding the lock",
        }
    }

    pub fn holds(self, counts: &Counts) -> bool {
        match self {
            Property::NoStaleOverwrite => counts.tally.stale_overwrites == 0,
            Property::MutualExclusion => counts.tally.mutual_exclusion_violations == 0,
            Property::NoRightfulWriteRejected => counts.tally.rightful_writes_rejected == 0,
            Property::LockEventuallyFree => !counts.truncated && counts.lock_holder_at_end.is_none(),
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
        assert_eq!(broken, ["no_stale_overwrite", "mutual_exclusion"]);
    }
}
