//! The lesson's sentences about runs, checked against the model: if a preset
//! changes, the build's tests say which paragraph no longer tells the truth.

#[cfg(test)]
mod tests {
    use fencing_sim::permalink::parse;
    use fencing_sim::{run, Actor, Event, Kind, Trace};

    const A: Actor = Actor::Worker(0);
    const B: Actor = Actor::Worker(1);
    const C: Actor = Actor::Worker(2);

    fn trace(query: &str) -> Trace {
        let (link, notices) = parse(query);
        assert!(notices.is_empty(), "{query}: {notices:?}");
        run(&link.scenario).expect("a preset is valid")
    }

    fn tokens_of(trace: &Trace, worker: Actor) -> Vec<u64> {
        trace
            .events
            .iter()
            .filter(|event| event.actor == worker && matches!(event.kind, Kind::Acquired { .. }))
            .filter_map(|event| event.token)
            .collect()
    }

    fn writes(trace: &Trace, accepted: bool) -> impl Iterator<Item = &Event> {
        trace.events.iter().filter(move |event| match event.kind {
            Kind::WriteAccepted { .. } => accepted,
            Kind::WriteRejected { .. } => !accepted,
            _ => false,
        })
    }

    fn writer(event: &Event) -> Actor {
        match event.kind {
            Kind::WriteAccepted { writer, .. } | Kind::WriteRejected { writer, .. } => writer,
            _ => unreachable!("a write"),
        }
    }

    /// When `worker` was granted the lock (the lock service's note), in µs.
    fn granted_at_us(trace: &Trace, worker: Actor) -> u64 {
        let granted = trace.events.iter().find(|event| matches!(event.kind, Kind::Granted { holder, .. } if holder == worker));
        granted.map(|event| event.t_us).expect("granted")
    }

    /// The myths page's lock-delay paragraph (lesson/pages/myths.html).
    /// "Rarer, not impossible", measured: the longer lease lets fewer
    /// zombies through and still some, a crash costs four times the wait,
    /// and fencing lets no stale write land.
    /// The myths page's comparison: against a 45 s pause both leases lose.
    #[test]
    fn a_forty_second_lease_loses_to_a_forty_five_second_pause() {
        let (link, notices) = parse("compare=lease-x4&pause_ms=45000");
        assert!(notices.is_empty(), "{notices:?}");
        let (short, long) = fencing_sim::compare::Difference::LeaseX4.split(&link.scenario);
        assert_eq!((short.ttl_ms, long.ttl_ms), (10_000, 40_000));
        for side in [short, long] {
            assert!(run(&side).expect("valid").summary.stale_overwrites > 0, "{} ms lease: B's data is overwritten", side.ttl_ms);
        }
    }

    /// Every `<run>` of the lesson names the verdict its sentence claims
    /// (`verdict="…"`; for a comparison `verdict="left | right"`), and the
    /// run its link opens ends with that verdict: a model change that alters
    /// a documented story fails here until the page is reviewed.
    #[test]
    fn every_run_link_shows_the_verdict_it_claims() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../pages");
        let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().path()).collect();
        files.sort();
        let mut wrong = Vec::new();
        let mut checked = 0;
        for file in files.iter().filter(|file| file.extension().is_some_and(|ext| ext == "html")) {
            let page = std::fs::read_to_string(file).unwrap();
            for tag in page.split("<run ").skip(1) {
                let attributes = &tag[..tag.find('>').unwrap()];
                let query = crate::expand::attribute(attributes, "query").unwrap();
                let (link, notices) = parse(query.trim_start_matches('?'));
                assert!(notices.is_empty(), "{query}: {notices:?}");
                let scenarios = match link.compare {
                    Some(difference) => {
                        let (left, right) = difference.split(&link.scenario);
                        vec![left, right]
                    }
                    None => vec![link.scenario],
                };
                let said: Vec<String> = scenarios.iter().map(|scenario| run(scenario).expect("valid").summary.verdict).collect();
                let claimed = crate::expand::attribute(attributes, "verdict").unwrap_or_default();
                let claims: Vec<&str> = claimed.split(" | ").collect();
                let holds =
                    claims.len() == said.len() && !claimed.is_empty() && said.iter().zip(&claims).all(|(said, claim)| said.contains(claim));
                if !holds {
                    wrong.push(format!("{}: {query}: claims {claimed:?}, the run says {}", file.display(), said.join(" | ")));
                }
                checked += 1;
            }
        }
        assert!(checked >= 15, "{checked} runs");
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn the_myths_fleet_is_rarer_not_impossible() {
        let page = include_str!("../../pages/myths.html");
        assert!(page.contains("<lesson-fleet></lesson-fleet>"), "the myths page carries the fleet's figure");
        let rows = crate::fleet::rows();
        let (short, long, fenced) = (&rows[0], &rows[1], &rows[2]);
        assert!(long.zombie_rate.per_10k < short.zombie_rate.per_10k, "rarer");
        assert!(long.zombie_rate.per_10k > 0.0, "not impossible");
        assert!(long.crash_wait_us > 3 * short.crash_wait_us, "and a crash keeps everyone waiting longer");
        assert!(fenced.fencing && fenced.stale_rate.per_10k == 0.0, "fencing: no stale overwrite");
        let figure = crate::fleet::figure();
        assert!(figure.contains(&crate::fleet::summary(rows)) && figure.contains("Quadrupling the lease cut zombie writes from"));
    }

    #[test]
    fn a_lock_delay_moves_the_threshold_it_does_not_remove_it() {
        let survived = trace("preset=consul-lock-delay");
        assert_eq!(survived.summary.stale_overwrites, 0, "a 30 s pause is survived");
        let b_granted_s = granted_at_us(&survived, B) / 1_000_000;
        assert_eq!(b_granted_s, 35, "nobody else is granted the lock until 35 s");
        let landed = trace("preset=consul-long-pause");
        assert_eq!((tokens_of(&landed, A), tokens_of(&landed, B)), (vec![33], vec![34]));
        assert_eq!(granted_at_us(&landed, B) / 1_000_000, 35, "B takes it at 35 s");
        let last = landed.summary.final_store.expect("the store holds data");
        assert_eq!((last.writer, last.token, landed.summary.stale_overwrites), (A, Some(33), 1), "A's 33 over B's data");
        // "35 s to 40 s instead of 10": the crashed holder's own grant to
        // B's, beside the 10 s lease's (B's retry backoff adds up to a
        // second there). A crashes 1 s in, before its first renewal (at
        // TTL / 2), so this run sits at the short end.
        for (query, blocked_us) in
            [("preset=holder-crash&lock=consul", 34_900_000..=40_100_000), ("preset=holder-crash", 10_000_000..=11_100_000)]
        {
            let crashed = trace(query);
            let waited_us = granted_at_us(&crashed, B) - granted_at_us(&crashed, A);
            assert!(blocked_us.contains(&waited_us), "{query}: a crashed holder keeps everyone out for {waited_us} µs");
        }
    }

    #[test]
    fn the_gc_pause_is_kleppmanns_story() {
        let plain = trace("preset=gc-pause");
        assert_eq!((tokens_of(&plain, A), tokens_of(&plain, B)), (vec![33], vec![34]));
        let last = plain.summary.final_store.expect("the store holds data");
        assert_eq!((last.writer, last.token), (A, Some(33)), "a plain store ends with A's stale data");
        let fenced = trace("preset=gc-pause&fencing=on");
        let refused: Vec<_> = writes(&fenced, false).map(|event| (writer(event), event.token)).collect();
        assert_eq!(refused, [(A, Some(33))], "a fencing store refuses 33 after 34");
    }

    #[test]
    fn a_token_drawn_in_a_second_round_trip_comes_out_inverted() {
        let inverted = trace("preset=token-inversion");
        // B's first token; its refused job is retried under 35 (issue 41, finding 5).
        assert_eq!((tokens_of(&inverted, A), tokens_of(&inverted, B)[0]), (vec![34], 33), "B draws 33, A draws 34");
        assert!(writes(&inverted, true).any(|event| writer(event) == A), "the store takes A's stale write");
        assert!(
            writes(&inverted, false).any(|event| writer(event) == B && matches!(event.kind, Kind::WriteRejected { rightful: true, .. })),
            "and refuses B, the rightful holder"
        );
        let script = trace("preset=token-inversion&token=script");
        assert_eq!(script.summary.rightful_writes_rejected, 0, "grant and token in one step: no rightful holder refused");
        // First tokens: A's refused job is retried later under a newer one (issue 41, finding 5).
        assert!(tokens_of(&script, A)[0] < tokens_of(&script, B)[0], "A's token is older than B's");
    }

    #[test]
    fn a_consensus_lease_survives_a_leader_crash() {
        let run = trace("preset=consensus-leader-crash");
        assert!(run.events.iter().any(|event| matches!(event.kind, Kind::Elected { .. })), "a new leader is elected");
        assert!(!run.events.iter().any(|event| matches!(event.kind, Kind::LeaseLost { holder } if holder == A)), "A keeps its lease");
        let (a, b) = (tokens_of(&run, A), tokens_of(&run, B));
        assert!(!a.is_empty() && !b.is_empty() && a[0] < b[0], "B's revision comes after A's: {a:?} {b:?}");
        assert_eq!(run.summary.mutual_exclusion_violations, 0, "no second holder");
    }

    #[test]
    fn the_other_failure_modes_say_what_their_runs_show() {
        let failover = trace("preset=redis-failover");
        assert_eq!((tokens_of(&failover, A), tokens_of(&failover, B)), (vec![33], vec![33]), "token 33 twice");
        let fenced = trace("preset=redis-failover&fencing=on");
        let overwrite = writes(&fenced, true).find(|event| matches!(event.kind, Kind::WriteAccepted { stale_overwrite: true, .. }));
        assert!(overwrite.is_some_and(|event| writer(event) == A), "the fencing store takes A's write over B's newer data");
        assert!(fencing_sim::presets::find("redis-failover").unwrap().cause.check(&fenced).is_ok(), "inside A's own lease");
        let delayed = trace("preset=delayed-write");
        assert!(!delayed.events.iter().any(|event| matches!(event.kind, Kind::PauseBegan { .. })), "no pause at all");
        assert!(delayed.summary.zombie_writes > 0, "the held write lands after B took over");
        let naive = trace("preset=naive-del");
        assert!(naive.summary.lock_lost_by_successor_release > 0, "A's DEL deletes B's lock");
        assert!(!tokens_of(&naive, C).is_empty(), "and C acquires it");
        let crash = trace("preset=holder-crash");
        let b_at =
            crash.events.iter().find(|event| event.actor == B && matches!(event.kind, Kind::Acquired { .. })).map(|event| event.t_us);
        assert!(b_at.is_some_and(|t_us| t_us >= 10_000_000), "B waits out the whole 10 s lease: {b_at:?}");
        let redlock = trace("preset=redlock-clock-jump");
        assert!(redlock.summary.mutual_exclusion_violations > 0, "both hold the lock");
        let consensus = trace("preset=consensus-gc-pause");
        let (a, b) = (tokens_of(&consensus, A), tokens_of(&consensus, B));
        assert!(a[0] < b[0], "revisions only grow: {a:?} {b:?}");
    }

    #[test]
    fn the_build_steps_say_what_their_runs_show() {
        // The watchdog: its first renewal after the resume is refused, yet the
        // write goes out as A wakes and lands on B's data.
        let renewal = trace("preset=renewal");
        let woke = renewal.events.iter().find(|event| event.actor == A && event.kind == Kind::PauseEnded).map(|event| event.t_us);
        let refused = renewal.events.iter().any(|event| event.actor == A && matches!(event.kind, Kind::LostLock { .. }));
        assert!(woke.is_some() && refused, "A wakes, and its renewal is refused");
        let overwrite = writes(&renewal, true).find(|event| matches!(event.kind, Kind::WriteAccepted { stale_overwrite: true, .. }));
        assert!(overwrite.is_some_and(|event| writer(event) == A), "A's write lands on B's data");
        // Without an fsync'd append-only file, a restart hands out low numbers again.
        let restart = "preset=gc-pause&token=script&fault=nodecrash:L1:1000:500&work_ms=4000";
        let forgetful = trace(restart);
        assert!(tokens_of(&forgetful, B).iter().all(|token| *token < 33), "B's token starts over: {:?}", tokens_of(&forgetful, B));
        let durable = trace(&format!("{restart}&persistence=fsync"));
        assert!(tokens_of(&durable, B).iter().all(|token| *token > 33), "the counter survives: {:?}", tokens_of(&durable, B));
    }

    /// Whether the page links `query` (its fingerprint may follow: documented.rs
    /// checks that) with the words `text`.
    fn links_as(page: &str, query: &str, text: &str) -> bool {
        let closing = format!(">{text}</a>");
        page.split(query).skip(1).any(|after| after.split_once('"').is_some_and(|(_, rest)| rest.starts_with(&closing)))
    }

    /// The "which library gives me a token" table (lesson/pages/tradeoffs.html):
    /// each row's run shows the tokens its link text names.
    #[test]
    fn the_token_table_links_show_the_tokens_they_name() {
        let page = include_str!("../../pages/tradeoffs.html");
        let query = "preset=consensus-gc-pause&fencing=on";
        assert!(links_as(page, query, "tokens 33 and 34"), "the table links {query}");
        let run = trace(query);
        // A's first token; its refused job is retried later under 37 (issue 41, finding 5).
        assert_eq!((tokens_of(&run, A)[0], tokens_of(&run, B)), (33, vec![34]), "{query}");
        // ZooKeeper: the czxid is the token and refuses A; under a recreated
        // parent the sequence number goes back to 0 (issue 41, finding 1).
        let query = "preset=zookeeper-gc-pause&fencing=on";
        assert!(links_as(page, query, "the czxid refuses A's write"), "the table links {query}");
        let run = trace(query);
        let refused: Vec<_> = writes(&run, false).map(|event| (writer(event), event.token)).collect();
        assert_eq!(refused, [(A, tokens_of(&run, A).first().copied())], "{query}");
        assert!(tokens_of(&run, A)[0] < tokens_of(&run, B)[0] && tokens_of(&run, A)[0] >> 32 == 1, "{query}: czxids of epoch 1");
        let query = "preset=zookeeper-parent-recreated&fencing=on";
        assert!(links_as(page, query, "the sequence number goes back to 0"), "the table links {query}");
        let run = trace(query);
        let sequence: Vec<u64> = run
            .events
            .iter()
            .filter_map(|event| match event.kind {
                Kind::Send { body: fencing_sim::msg::Msg::Created { seq, .. }, .. } => Some(seq),
                _ => None,
            })
            .collect();
        // A's refused job is retried, and its new znode is n-…1 (issue 41, finding 5).
        assert_eq!(sequence[..2], [33, 0], "{query}");
        assert!(run.events.iter().any(|event| event.kind == Kind::ParentRemoved), "{query}: the parent was deleted");
        for query in ["preset=consul-long-pause&fencing=on", "preset=redisson-gc-pause&fencing=on"] {
            assert!(page.contains(query), "the table links {query}");
            let run = trace(query);
            let refused: Vec<_> = writes(&run, false).map(|event| (writer(event), event.token)).collect();
            assert_eq!(refused, [(A, Some(33))], "{query}: 33 refused after 34");
            assert_eq!(tokens_of(&run, B), [34], "{query}");
        }
        assert!(links_as(page, "preset=redisson-short-pause", "is survived"));
        let survived = trace("preset=redisson-short-pause");
        assert_eq!((survived.summary.zombie_writes, survived.summary.stale_overwrites), (0, 0), "the shorter pause is survived");
    }

    /// No page calls ZooKeeper's sequence number a token or says it only
    /// grows: under Curator's container parent it goes back to 0.
    #[test]
    fn no_page_says_zookeepers_sequence_number_is_a_token() {
        for (name, page) in [
            ("tradeoffs", include_str!("../../pages/tradeoffs.html")),
            ("reading", include_str!("../../pages/reading.html")),
            ("myths", include_str!("../../pages/myths.html")),
        ] {
            let text = page.to_lowercase();
            for wrong in ["sequence numbers 33 and 34", "sequence number both orders waiters", "sequence number only grows"] {
                assert!(!text.contains(wrong), "{name}: {wrong}");
            }
        }
    }

    /// The trade-off table times each consensus service by its own rules,
    /// not etcd's (issue 41, finding 6), and names the mitigations it would
    /// otherwise leave out.
    #[test]
    fn the_tradeoffs_quote_each_services_own_timers_and_mitigations() {
        let page = include_str!("../../pages/tradeoffs.html");
        for said in [
            "ZooKeeper grants 4–40 s",
            "up to one tick late",
            "Consul grants 10 s – 24 h and invalidates up to twice the TTL after the last renewal",
            "<code>min-replicas-to-write</code>",
            "writes go through the same session",
        ] {
            assert!(page.contains(said), "the trade-off page says {said}");
        }
    }

    /// The trade-off table's sentences, each beside the verdict that backs
    /// it: the explorer's, on the GC-pause design, with up to two faults.
    #[test]
    fn the_tradeoffs_say_what_the_explorer_finds() {
        use fencing_sim::explore::{explore, Outcome};
        use fencing_sim::property::Property;
        use fencing_sim::{presets, LockService, RedisPersistence, Scenario, StoreKind, TokenSource};
        let page = include_str!("../../pages/tradeoffs.html");
        let broken = |design: &Scenario, property| matches!(explore(design, property, 2).unwrap(), Outcome::Counterexample(_));
        let fenced = Scenario { fencing: true, ..presets::classic() };
        let single =
            Scenario { token_source: TokenSource::AtomicScript, redis_persistence: RedisPersistence::FsyncAlways, ..fenced.clone() };
        let consensus = Scenario { lock_service: LockService::Consensus, ..fenced.clone() };
        let failover = Scenario { lock_service: LockService::RedisFailover, ..single.clone() };
        let no_lock = Scenario { lock_service: LockService::None, store: StoreKind::Versioned, fencing: false, ..presets::classic() };
        let said = |sentence: &str| assert!(page.contains(sentence), "the trade-offs no longer say: {sentence}");
        said("the model's search finds no stale overwrite: the same verdict as a consensus lock");
        assert!(!broken(&single, Property::NoStaleOverwrite) && !broken(&consensus, Property::NoStaleOverwrite));
        said("a Redis failover can hand out the same token twice");
        assert!(broken(&failover, Property::NoStaleOverwrite), "the failover breaks the same design");
        said("No lost update: a write lands only if the version is still the one the writer read");
        assert!(!broken(&no_lock, Property::NoLostUpdate));
        said("so an effect outside the store (a card charged, an email sent) can happen twice");
        assert!(broken(&no_lock, Property::WorkDoneOnce));
        assert!(
            !page.contains("efficiency lock:") && !page.contains("A correctness lock:"),
            "the model shows availability, not a kind of lock"
        );
    }
}
