//! A link as it would be made now (`fencing-lab link`, and the check of
//! every documented link): a plain run's link, a question's or a set's, each
//! with the fingerprint of the run it shows (`permalink::story`).

use crate::permalink::{self, story};
use crate::scenario::Scenario;

/// A link as it would be made now: the same pairs in the same order, with
/// the fingerprint of the run it shows (a question re-signed with it, every
/// question of a set too); and, when that differs from the fingerprint it
/// carried, the first difference. A link with no scenario of its own (no
/// `preset`, `compare`, `ask` or `set`) is returned as it is.
pub fn restamped(query: &str) -> (String, Option<String>) {
    let query = query.strip_prefix('?').unwrap_or(query);
    let pairs: Vec<&str> = query.split('&').filter(|pair| !pair.is_empty()).collect();
    let named = |key: &str| pairs.iter().position(|pair| pair.split('=').next() == Some(key));
    if let Some(at) = named("set") {
        let (questions, notices) = crate::ask::parse_set(&pairs[at]["set=".len()..]);
        let set = format!("set={}", crate::ask::set_to_value(&questions));
        let rest: Vec<&str> = pairs.iter().enumerate().map(|(index, pair)| if index == at { set.as_str() } else { pair }).collect();
        return (rest.join("&"), notices.into_iter().next());
    }
    if let (Some(_), Some(sum)) = (named("ask"), named("sum")) {
        // The question is everything up to its checksum; the page's own keys follow.
        let (question, notices) = crate::ask::parse(&pairs[..=sum].join("&"));
        let Some(question) = question else { return (query.to_string(), notices.into_iter().next()) };
        let fresh = std::iter::once(question.to_query()).chain(pairs[sum + 1..].iter().map(|pair| pair.to_string()));
        return (fresh.collect::<Vec<_>>().join("&"), notices.into_iter().next());
    }
    if named("preset").or(named("compare")).is_none() {
        return (query.to_string(), None);
    }
    let unstamped: Vec<&str> = pairs.iter().copied().filter(|pair| pair.split('=').next() != Some(story::KEY)).collect();
    // The page's own keys (view, embed…) are no setting: their notices do not matter here.
    let (link, _) = permalink::parse(&unstamped.join("&"));
    let fresh = with_fingerprint_of(unstamped.join("&"), &link.scenario);
    let carried = pairs.iter().find_map(|pair| pair.strip_prefix("fp="));
    let difference = match carried {
        Some(text) => story::notice(text, &link.scenario),
        None => Some("it carried no fingerprint".to_string()),
    };
    (fresh, difference)
}

fn with_fingerprint_of(query: String, scenario: &Scenario) -> String {
    permalink::with_fingerprint(query, story::of_scenario(scenario))
}

#[cfg(test)]
mod tests;
