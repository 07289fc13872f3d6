//! A link as it would be made now (`fencing-lab link`, and the check of
//! every documented link): a plain run's link, a question's or a set's, each
//! with the fingerprint of the run it shows (`permalink::story`).

use crate::ask::{self, Custom};
use crate::permalink::page::{self, View};
use crate::permalink::{self, fleet as fleet_link, story};
use crate::scenario::Scenario;

/// A link as the page reads it on opening it: the view it opens and every
/// notice the page shows (the page's own keys', then its view's reader's),
/// from the page's own readers in the page's order (`src/shell/app.rs`,
/// `src/teach/asked.rs`, `src/explorer/mod.rs`, `src/fleet/mod.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub view: View,
    pub notices: Vec<String>,
    /// A fleet's link: the fleet, and the fingerprint it carried, which the
    /// page checks only once the fleet has run (`fleet_notice`).
    pub fleet: Option<(fleet_link::FleetLink, Option<String>)>,
}

/// Reads `query` as the page does. Never panics.
pub fn read(query: &str) -> Reading {
    let page = page::split_query(query);
    let view = page::view_of(&page);
    // The app reads every view's link as a story's but the fleet's (app.rs).
    let mut notices = match view {
        View::Fleet => Vec::new(),
        _ => permalink::parse(&page.rest).1,
    };
    notices.extend(page.notices.iter().cloned());
    notices.extend(quiz_notice(&page));
    let mut fleet = None;
    match view {
        View::Ask => notices.extend(questions(&page.rest).2),
        View::Explore => notices.extend(page::read_choice(&page.explorer).2),
        View::Fleet => {
            let (link, said) = fleet_link::parse(&page.rest);
            notices.extend(said);
            let carried = page.rest.split('&').find_map(|pair| pair.strip_prefix("fp=")).map(str::to_string);
            fleet = Some((link, carried));
        }
        _ => {}
    }
    Reading { view, notices, fleet }
}

/// The notice for a `quiz=` that names no question of the quiz (the quiz
/// then opens at its first). Here, not in `permalink::page`: the quiz's
/// questions have links of their own, and `permalink` sits below `quiz`.
pub fn quiz_notice(page: &page::PageQuery) -> Option<String> {
    let id = page.quiz.as_deref().filter(|id| !crate::quiz::IDS.contains(id))?;
    let first = crate::quiz::IDS[0];
    Some(format!("ignored quiz={}: there is no such question, so the quiz opens at its first ({first})", permalink::shown(id)))
}

/// A question's or a set's link (the page's own keys split off), read as
/// the question view reads it: the questions, the set's value if it is a
/// set, and the notices.
pub fn questions(rest: &str) -> (Vec<Custom>, Option<&str>, Vec<String>) {
    match rest.split('&').find_map(|pair| pair.strip_prefix("set=")) {
        Some(value) => {
            let (questions, notices) = ask::parse_set(value);
            (questions, Some(value), notices)
        }
        None => {
            let (question, notices) = ask::parse(rest);
            (question.into_iter().collect(), None, notices)
        }
    }
}

/// The notice the page adds once a fleet's link has run: its fingerprint
/// `carried` against the fleet's report (None when they agree).
pub fn fleet_notice(carried: Option<&str>, report: &crate::fleet::FleetReport) -> Option<String> {
    carried.and_then(|text| fleet_link::fingerprint_notice(text, report))
}

/// A fleet's link checked once its fleet has run: the notices the page
/// adds then (and that it carried no fingerprint), and the link as the page
/// writes it, with its report's fingerprint, when there is no other notice.
pub fn fleet_checked(link: &fleet_link::FleetLink, carried: Option<&str>, report: &crate::fleet::FleetReport) -> Check {
    let fresh = format!("view=fleet&{}&{}={}", fleet_link::to_query(link), story::KEY, fleet_link::FleetStory::of(report).to_text());
    let notices = match carried {
        Some(_) => fleet_notice(carried, report).into_iter().collect(),
        None => vec!["the link's fingerprint is not its fleet's: it carried no fingerprint".to_string()],
    };
    let refreshable = notices.iter().all(|notice| only_fingerprint_differs(notice)) || carried.is_none();
    Check { notices, fresh: refreshable.then_some(fresh), fleet: None }
}

/// What `fencing-lab link` makes of a link: every notice the page shows on
/// opening it (and, for a story's link, that it carries no fingerprint),
/// and the link as made now when the one thing wrong with it is that its
/// run changed since it was made. A link with any other notice — a
/// question or a set whose checksum failed, an ignored value — is never
/// signed again, and no link is given out that the page would read with a
/// notice. A fleet's link is returned to be run: its fingerprint is its
/// fleet's report's (`fleet_notice`).
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub notices: Vec<String>,
    pub fresh: Option<String>,
    pub fleet: Option<(fleet_link::FleetLink, Option<String>)>,
}

/// Checks a link (or its query: the part after the first '?' is read).
pub fn check(link: &str) -> Check {
    let query = link.split_once('?').map_or(link, |(_, query)| query);
    let Reading { notices, fleet, .. } = read(query);
    if fleet.is_some() {
        return Check { notices, fresh: None, fleet };
    }
    let (fresh, difference) = restamped(query);
    let refreshable = notices.iter().all(|notice| only_fingerprint_differs(notice));
    let reads_clean = refreshable && read(&fresh).notices.is_empty();
    let mut said = notices;
    if said.is_empty() {
        // The page says nothing of a link without a fingerprint; a check does.
        said.extend(difference.map(|difference| format!("the link's fingerprint is not its run's: {difference}")));
    }
    if refreshable && !reads_clean {
        said.push("this link cannot be made afresh so that the page reads it without a notice: make it again on the page".to_string());
    }
    Check { notices: said, fresh: reads_clean.then_some(fresh), fleet: None }
}

/// Whether a notice says only that the run is not the one the link's author
/// saw (the model changed since): the one notice that re-stamping a link
/// answers. A question's checksum, an ignored value, anything else is not
/// re-signed over. (The question reader words the same news its own way,
/// and a set prefixes each question's notices with its number.)
pub fn only_fingerprint_differs(notice: &str) -> bool {
    let notice = match notice.strip_prefix("question ") {
        Some(rest) => rest.split_once(": ").map_or(notice, |(_, said)| said),
        None => notice,
    };
    notice.starts_with(story::CHANGED) || notice.starts_with("this question was made with an earlier version of the simulator")
}

/// A link as it would be made now: the same pairs in the same order, with
/// the fingerprint of the run it shows (a question re-signed with it, every
/// question of a set too); and, when that differs from the fingerprint it
/// carried, the first difference. A link with no scenario of its own (no
/// setting, only the page's keys), or a fleet's (its fingerprint is
/// its fleet's, known once the fleet has run), is returned as it is. Which
/// kind a link is, is the page's reading (`read`): `?set` with no value is
/// no set, and `pres%65t=` names the preset.
pub fn restamped(query: &str) -> (String, Option<String>) {
    let query = query.strip_prefix('?').unwrap_or(query);
    let pairs: Vec<&str> = query.split('&').filter(|pair| !pair.is_empty()).collect();
    let key_of = |pair: &str| form_urlencoded::parse(pair.as_bytes()).next().map(|(key, _)| key.into_owned());
    let named = |key: &str| pairs.iter().position(|pair| key_of(pair).as_deref() == Some(key));
    let page = page::split_query(query);
    let view = page::view_of(&page);
    if view == View::Fleet {
        return (query.to_string(), None);
    }
    if view == View::Ask {
        if let Some(at) = pairs.iter().position(|pair| pair.starts_with("set=")) {
            let (questions, notices) = ask::parse_set(pairs[at].strip_prefix("set=").unwrap_or(""));
            let set = format!("set={}", ask::set_to_value(&questions));
            let rest: Vec<&str> = pairs.iter().enumerate().map(|(index, pair)| if index == at { set.as_str() } else { pair }).collect();
            return (rest.join("&"), notices.into_iter().next());
        }
        let Some(sum) = named("sum") else { return (query.to_string(), questions(&page.rest).2.into_iter().next()) };
        // The question is everything up to its checksum; the page's own keys follow.
        let (question, notices) = ask::parse(&pairs[..=sum].join("&"));
        let Some(question) = question else { return (query.to_string(), notices.into_iter().next()) };
        let fresh = std::iter::once(question.to_query()).chain(pairs[sum + 1..].iter().map(|pair| pair.to_string()));
        return (fresh.collect::<Vec<_>>().join("&"), notices.into_iter().next());
    }
    // Any setting makes a run of its own (`fencing=on` is gc-pause fenced).
    if page.rest.is_empty() {
        return (query.to_string(), None);
    }
    let unstamped: Vec<&str> = pairs.iter().copied().filter(|pair| key_of(pair).as_deref() != Some(story::KEY)).collect();
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
