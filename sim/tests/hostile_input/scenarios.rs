//! The second door: a scenario file.

use super::*;

/// What became of a scenario file.
#[derive(Debug)]
enum Outcome {
    /// serde_json refused it.
    Unreadable(String),
    /// It read, but `validate` (and `run`) refused it.
    Invalid(Vec<String>),
    /// It ran: this many events.
    Ran { events: usize, truncated: bool },
}

/// Reads, validates and (when valid) runs a scenario file, checking the
/// bounds every outcome must respect.
fn outcome(json: &str, events_cap: Option<u32>) -> Outcome {
    let mut scenario = match serde_json::from_str::<Scenario>(json) {
        Ok(scenario) => scenario,
        Err(error) => return Outcome::Unreadable(error.to_string()),
    };
    if let Some(cap) = events_cap {
        scenario.events_max = scenario.events_max.min(cap);
    }
    if let Err(error) = scenario.validate() {
        assert!(!error.problems.is_empty() && error.problems.iter().all(|problem| !problem.is_empty()));
        assert_eq!(run(&scenario).unwrap_err(), error, "run refuses what validate refuses");
        return Outcome::Invalid(error.problems);
    }
    let trace = run(&scenario).expect("a valid scenario runs");
    let bound = scenario.events_max as usize;
    let len = trace.events.len();
    assert!(len <= bound + 1 + KNOWN_OVERSHOOT_MAX, "{len} events, bound {bound}: {json}");
    let last_is_truncated = trace.events.last().is_some_and(|event| matches!(event.kind, Kind::Truncated { .. }));
    assert_eq!(trace.summary.truncated, last_is_truncated, "{json}");
    Outcome::Ran { events: trace.events.len(), truncated: trace.summary.truncated }
}

fn unreadable(json: &str, wanted: &str) {
    match outcome(json, None) {
        Outcome::Unreadable(error) => assert!(error.contains(wanted), "{json:.80}: wanted {wanted:?} in {error:?}"),
        other => panic!("{json:.80}: wanted unreadable ({wanted}), got {other:?}"),
    }
}

fn invalid(json: &str, wanted: &str) {
    match outcome(json, None) {
        Outcome::Invalid(problems) => {
            assert!(problems.iter().any(|problem| problem.contains(wanted)), "{json:.80}: wanted {wanted:?} in {problems:?}")
        }
        other => panic!("{json:.80}: wanted invalid ({wanted}), got {other:?}"),
    }
}

fn runs(json: &str) -> (usize, bool) {
    match outcome(json, None) {
        Outcome::Ran { events, truncated } => (events, truncated),
        other => panic!("{json:.80}: wanted a run, got {other:?}"),
    }
}

#[test]
fn scenario_files_table() {
    unreadable("", "EOF while parsing a value at line 1 column 0");
    unreadable("   ", "EOF while parsing a value");
    unreadable("null", "invalid type: null, expected struct Scenario");
    unreadable("7", "invalid type: integer `7`, expected struct Scenario");
    unreadable(r#"{"ttl_ms": 1e30}"#, "invalid type: floating point `1e+30`, expected u64");
    unreadable(r#"{"ttl_ms": 18446744073709551616}"#, "invalid type: floating point `1.8446744073709552e+19`, expected u64");
    unreadable(r#"{"seed": 18446744073709551616}"#, "expected u64");
    unreadable(r#"{"ttl_ms": -5}"#, "invalid value: integer `-5`, expected u64");
    unreadable(r#"{"ttl_ms": 1.5}"#, "invalid type: floating point `1.5`, expected u64");
    unreadable(r#"{"ttl_ms": NaN}"#, "expected value at line 1 column 12");
    unreadable(r#"{"ttl_ms": Infinity}"#, "expected value");
    unreadable(r#"{"ttl_ms": "5000"}"#, "invalid type: string \"5000\", expected u64");
    unreadable(r#"{"workers": 256}"#, "invalid value: integer `256`, expected u8");
    unreadable(r#"{"lock_service": "chubby"}"#, "unknown variant `chubby`, expected one of `single_redis`");
    unreadable(r#"{"ttl_msec": 5}"#, "unknown field `ttl_msec`");
    unreadable(r#"{"ttl_ms": 5, "ttl_ms": 6}"#, "duplicate field `ttl_ms`");
    unreadable(r#"{"ttl_ms": 5"#, "EOF while parsing an object");
    unreadable(r#"{"faults": [{"fault": "meteor"}]}"#, "unknown variant `meteor`");
    unreadable(r#"{"faults": [{"fault": "crash", "worker": "Q9", "at_ms": 1}]}"#, "unknown actor \"Q9\"");
    unreadable(r#"{"faults": [{"fault": "crash", "worker": "B", "at_ms": 1, "x": 1}]}"#, "unknown field `x`");
    unreadable(r#"{"faults": [{"fault": "pause", "worker": "A", "when": {"at_ms": -1}, "pause_ms": 1}]}"#, "expected u64");
    unreadable(r#"{"faults": [{"fault": "clock_drift", "node": "L1", "ppm": 2147483648}]}"#, "expected i32");

    invalid(r#"{"ttl_ms": 0}"#, "ttl_ms must be 1–3600000, not 0");
    invalid(r#"{"ttl_ms": 18446744073709551615}"#, "ttl_ms must be 1–3600000, not 18446744073709551615");
    invalid(r#"{"workers": 9}"#, "workers must be 2–5, not 9");
    invalid(r#"{"first_token": 0}"#, "first_token must be 1–2^50, not 0");
    invalid(r#"{"events_max": 0}"#, "events_max must be 1–200000");
    invalid(r#"{"events_max": 4294967295}"#, "events_max must be 1–200000");
    invalid(r#"{"latency_us_min": 5, "latency_us_max": 4}"#, "latency must satisfy");
    invalid(r#"{"backoff_ms_min": 0}"#, "backoff must satisfy");
    invalid(r#"{"lock_service": "none"}"#, "choose both or neither");
    let huge_pause =
        r#"{"faults": [{"fault": "pause", "worker": "A", "when": {"at_ms": 18446744073709551615}, "pause_ms": 18446744073709551615}]}"#;
    invalid(huge_pause, "fault 1: times and lengths must be at most 3600000 ms");
    invalid(r#"{"faults": [{"fault": "clock_jump", "node": "L1", "at_ms": 0, "jump_ms": -9223372036854775808}]}"#, "times and lengths");
    invalid(r#"{"faults": [{"fault": "clock_drift", "node": "L1", "ppm": -2147483648}]}"#, "clock drift must be within ±500000 ppm");
    invalid(r#"{"faults": [{"fault": "pause", "worker": "A", "when": {"before_write": 0}, "pause_ms": 1}]}"#, "write 0 does not exist");
    invalid(r#"{"faults": [{"fault": "node_crash", "node": "L5", "at_ms": 1, "down_ms": 1}]}"#, "there is no L5");

    // Read and run: everything missing keeps the classic scenario's value.
    assert_eq!(serde_json::from_str::<Scenario>("{}").unwrap(), presets::classic());
    runs("{}");
    runs(r#"{"seed": 18446744073709551615}"#);
    runs(r#"{"first_token": 1125899906842624}"#);
    // `preset` is informative only: an unknown one is kept as text, not refused.
    assert_eq!(serde_json::from_str::<Scenario>(r#"{"preset": "nope"}"#).unwrap().preset, "nope");
    runs(r#"{"preset": "nope"}"#);
    // serde reads a struct from a JSON array too, field by field in order.
    assert_eq!(serde_json::from_str::<Scenario>("[]").unwrap(), presets::classic());
    assert_eq!(serde_json::from_str::<Scenario>(r#"["x", 7]"#).unwrap().seed, 7);
    unreadable(&format!("[{}]", vec!["0"; 100].join(",")), "invalid type: integer `0`, expected a string");
}

#[test]
fn scenario_files_with_non_utf8_bytes() {
    let bytes: &[u8] = b"{\"preset\": \"\xff\xfe\"}";
    let error = serde_json::from_slice::<Scenario>(bytes).unwrap_err().to_string();
    assert!(error.contains("invalid unicode code point at line 1 column 13"), "{error}");
    // Read as text first (as the command line does), the bytes become U+FFFD.
    let text = String::from_utf8_lossy(bytes);
    assert_eq!(serde_json::from_str::<Scenario>(&text).unwrap().preset, "\u{FFFD}\u{FFFD}");
    unreadable(&String::from_utf8_lossy(b"{\"lock_service\": \"\xc0\"}"), "unknown variant `\u{FFFD}`");
    unreadable(&String::from_utf8_lossy(b"{\xff: 1}"), "key must be a string");
}

/// `{"faults": [f, f, …]}` with `count` copies of `fault`.
fn faults_json(fault: &str, count: usize) -> String {
    let mut json = String::with_capacity(16 + count * (fault.len() + 1));
    json.push_str("{\"faults\": [");
    for index in 0..count {
        if index > 0 {
            json.push(',');
        }
        json.push_str(fault);
    }
    json.push_str("]}");
    json
}

#[test]
fn a_million_faults_are_refused_quickly() {
    let pause = r#"{"fault": "pause", "worker": "A", "when": {"at_ms": 1}, "pause_ms": 1}"#;
    let json = faults_json(pause, 1_000_000);
    let started = Instant::now();
    let result = outcome(&json, None);
    let took = started.elapsed();
    println!("10^6 pause faults ({} MB of JSON): refused in {took:?}", json.len() / 1_000_000);
    match result {
        Outcome::Unreadable(error) => assert!(error.starts_with("at most 32 faults, not more at line 1"), "{error}"),
        other => panic!("a million faults must be refused, got {other:?}"),
    }
    assert!(took < Duration::from_secs(2), "took {took:?}");
    unreadable(&faults_json(pause, FAULTS_MAX + 1), "at most 32 faults, not more");
    // Exactly the maximum is read, checked and run.
    let ladder: Vec<String> = (0..FAULTS_MAX)
        .map(|index| {
            format!(
                r#"{{"fault": "pause", "worker": "{}", "when": {{"at_ms": {}}}, "pause_ms": 3000}}"#,
                ["A", "B"][index % 2],
                index * 1000
            )
        })
        .collect();
    runs(&format!(r#"{{"faults": [{}]}}"#, ladder.join(",")));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let started = Instant::now();
    unreadable(&deep(10_000), "invalid type: sequence, expected a string at line 1 column 1");
    // Inside a fault serde buffers any value first: serde_json's recursion
    // limit (128) is what stops it.
    let in_fault = format!(r#"{{"faults": [{{"fault": "crash", "worker": {}}}]}}"#, deep(10_000));
    unreadable(&in_fault, "recursion limit exceeded");
    let objects = format!(r#"{{"faults": [{{"fault": "crash", "worker": {}1{}}}]}}"#, "{\"a\":".repeat(10_000), "}".repeat(10_000));
    unreadable(&objects, "recursion limit exceeded");
    unreadable(&format!(r#"{{"seed": {}}}"#, deep(10_000)), "invalid type: sequence, expected u64");
    println!("10^4-deep nesting, four ways: {:?}", started.elapsed());
}

#[test]
fn the_largest_valid_run_stops_at_its_bound() {
    // A 3 ms lease renewed every millisecond through an hour of work, while
    // four others retry a thousand times each: far more than the bound.
    let busy = json!({
        "workers": 5, "ttl_ms": 3, "work_ms": 3_600_000, "start_gap_ms": 0, "renewal": true,
        "backoff_ms_min": 1, "backoff_ms_max": 1, "acquire_attempts_max": 1000,
        "latency_us_min": 0, "latency_us_max": 0, "events_max": EVENTS_MAX, "faults": [],
    });
    let started = Instant::now();
    let (events, truncated) = runs(&busy.to_string());
    println!("busiest valid run: {events} events (truncated: {truncated}) in {:?}", started.elapsed());
    assert_eq!((events, truncated), (EVENTS_MAX as usize + 1, true));
}

/// The strict bound: at most `events_max` events, then the `Truncated` one.
/// `?preset=renewal&ttl_ms=5` once logged 10,002 events with a bound of
/// 10,000, and `events_max: 1` gave 3.
#[test]
fn a_truncated_run_keeps_to_its_bound() {
    let (link, _) = permalink::parse("preset=renewal&ttl_ms=5");
    let trace = run(&link.scenario).unwrap();
    assert!(trace.summary.truncated);
    assert_eq!(trace.events.len(), link.scenario.events_max as usize + 1, "preset=renewal&ttl_ms=5");
    for preset in presets::PRESETS {
        for events_max in 1..=120 {
            let base = (preset.build)();
            let scenario = Scenario { ttl_ms: base.lock_service.nearest_ttl_ms(1), events_max, ..base };
            let trace = run(&scenario).unwrap();
            assert!(
                trace.events.len() <= events_max as usize + 1,
                "{} ttl_ms=1 events_max={events_max}: {} events",
                preset.id,
                trace.events.len()
            );
        }
    }
}

// Generated scenario files: the presets' JSON with fields swapped for
// hostile values, random faults, text-level damage, and plain noise.

fn hostile_json_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            0u64,
            1,
            2,
            3,
            5,
            10,
            255,
            256,
            1_000,
            3_600_000,
            3_600_001,
            200_000,
            200_001,
            10_000_000,
            1 << 50,
            (1 << 50) + 1,
            u64::from(u32::MAX),
            u64::MAX,
        ])
        .prop_map(Value::from),
        prop::sample::select(vec![-1i64, i64::MIN, i64::from(i32::MIN), -500_000, 500_000]).prop_map(Value::from),
        (0..100_000u64).prop_map(Value::from),
        prop::sample::select(vec![1.5f64, 1e30, -0.0]).prop_map(Value::from),
    ]
}

fn hostile_json_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => hostile_json_number(),
        3 => prop::sample::select(vec![
            "", "nope", "single_redis", "redis_failover", "redlock", "consensus", "none", "database", "versioned", "nfs_file",
            "compare_and_delete", "naive_del", "A", "B", "E", "L1", "L5", "store",
        ])
        .prop_map(Value::from),
        1 => "\\PC{0,8}".prop_map(Value::from),
        1 => any::<bool>().prop_map(Value::from),
        1 => Just(Value::Null),
        1 => Just(json!([])),
        1 => Just(json!({})),
    ]
}

/// A value for one field: mostly of the field's own type (often at or past
/// a bound), sometimes anything at all.
fn field_value(field: &'static str) -> BoxedStrategy<Value> {
    let own: BoxedStrategy<Value> = match field {
        "preset" => prop_oneof![Just(Value::from("nope")), "\\PC{0,12}".prop_map(Value::from)].boxed(),
        "workers" | "writes_per_hold" => prop_oneof![(0..=6u8).prop_map(Value::from), Just(Value::from(255)), Just(Value::from(11))].boxed(),
        "lock_service" => prop::sample::select(vec!["single_redis", "redis_failover", "redlock", "consensus", "none", "etcd"]).prop_map(Value::from).boxed(),
        "store" => prop::sample::select(vec!["database", "versioned", "nfs_file", "s3"]).prop_map(Value::from).boxed(),
        "release" => prop::sample::select(vec!["compare_and_delete", "naive_del", "unlink"]).prop_map(Value::from).boxed(),
        "fencing" | "renewal" | "check_before_write" => any::<bool>().prop_map(Value::from).boxed(),
        "seed" | "first_token" => prop_oneof![any::<u64>().prop_map(Value::from), hostile_json_number()].boxed(),
        _ => prop_oneof![
            3 => (0..20_000u64).prop_map(Value::from),
            1 => prop::sample::select(vec![0u64, 1, 1_000, 200_000, 200_001, 3_600_000, 3_600_001, 10_000_000, 10_000_001, u64::from(u32::MAX)]).prop_map(Value::from),
        ]
        .boxed(),
    };
    prop_oneof![9 => own, 1 => hostile_json_value()].boxed()
}

const SCENARIO_FIELDS: &[&str] = &[
    "preset",
    "seed",
    "workers",
    "lock_service",
    "store",
    "fencing",
    "ttl_ms",
    "first_token",
    "start_gap_ms",
    "work_ms",
    "writes_per_hold",
    "renewal",
    "check_before_write",
    "release",
    "latency_us_min",
    "latency_us_max",
    "backoff_ms_min",
    "backoff_ms_max",
    "acquire_attempts_max",
    "request_timeout_ms",
    "replication_lag_ms",
    "failover_ms",
    "faults",
    "events_max",
    "unknown_field",
];

/// A fault as JSON: mostly well-formed, with targets and numbers that may
/// not exist or not fit.
fn hostile_fault_json() -> impl Strategy<Value = Value> {
    let kind =
        prop::sample::select(vec!["pause", "delay_write", "lose_message", "partition", "crash", "clock_drift", "clock_jump", "node_crash"]);
    // Mostly targets every scenario has (A, B, L1, the store), so that
    // several faults together often pass `validate` and run.
    let actor = prop_oneof![
        12 => prop::sample::select(vec!["A", "B", "L1", "store"]).prop_map(Value::from),
        4 => prop::sample::select(vec!["C", "D", "E", "L2", "L3", "L4", "L5"]).prop_map(Value::from),
        1 => hostile_json_value(),
    ];
    let number = prop_oneof![12 => (0..40_000u64).prop_map(Value::from), 1 => hostile_json_number()];
    let when = prop_oneof![
        4 => number.clone().prop_map(|ms| json!({ "at_ms": ms })),
        4 => (0..4u8).prop_map(|n| json!({ "before_write": n })),
        1 => hostile_json_value(),
    ];
    (kind, actor, number.clone(), number.clone(), when, prop::sample::select(vec![-20_000i64, -5, 0, 5, 10_000, 100_000])).prop_map(
        |(kind, actor, a, b, when, signed)| match kind {
            "pause" => json!({ "fault": kind, "worker": actor, "when": when, "pause_ms": a }),
            "delay_write" => {
                json!({ "fault": kind, "worker": actor, "write": b.as_u64().map_or(b.clone(), |b| Value::from(b % 4)), "delay_ms": a })
            }
            "lose_message" => json!({ "fault": kind, "from": actor, "at_ms": a }),
            "partition" => json!({ "fault": kind, "node": actor, "at_ms": a, "for_ms": b }),
            "crash" => json!({ "fault": kind, "worker": actor, "at_ms": a }),
            "clock_drift" => json!({ "fault": kind, "node": actor, "ppm": signed }),
            "clock_jump" => json!({ "fault": kind, "node": actor, "at_ms": a, "jump_ms": signed }),
            _ => json!({ "fault": kind, "node": actor, "at_ms": a, "down_ms": b }),
        },
    )
}

/// Damage done to the JSON text itself.
#[derive(Clone, Debug)]
enum Damage {
    None,
    Truncate(prop::sample::Index),
    Insert(prop::sample::Index, char),
    Remove(prop::sample::Index),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        20 => Just(Damage::None),
        1 => any::<prop::sample::Index>().prop_map(Damage::Truncate),
        1 => (any::<prop::sample::Index>(), prop::sample::select(vec!['{', '}', '[', ']', ',', ':', '"', '-', '9', 'e', '\\', '\u{0}'])).prop_map(|(at, c)| Damage::Insert(at, c)),
        1 => any::<prop::sample::Index>().prop_map(Damage::Remove),
    ]
}

fn damaged(text: String, damage: &Damage) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    match damage {
        Damage::None => {}
        Damage::Truncate(at) => chars.truncate(at.index(chars.len() + 1)),
        Damage::Insert(at, c) => chars.insert(at.index(chars.len() + 1), *c),
        Damage::Remove(at) => {
            if !chars.is_empty() {
                chars.remove(at.index(chars.len()));
            }
        }
    }
    chars.into_iter().collect()
}

/// A preset's scenario as JSON, with hostile edits.
fn mutated_scenario_json() -> impl Strategy<Value = String> {
    let preset = 0..presets::PRESETS.len();
    let edit = prop::sample::select(SCENARIO_FIELDS.to_vec())
        .prop_flat_map(|field| (Just(field), prop::option::weighted(0.9, field_value(field))));
    let edits = prop::collection::vec(edit, 0..5);
    let faults = prop::option::weighted(0.5, prop::collection::vec(hostile_fault_json(), 0..4));
    (preset, edits, faults, any::<u64>(), damage()).prop_map(|(preset, edits, faults, seed, damage)| {
        let scenario = Scenario { seed, ..(presets::PRESETS[preset].build)() };
        let mut value = serde_json::to_value(&scenario).unwrap();
        let object = value.as_object_mut().unwrap();
        for (field, edit) in edits {
            match edit {
                Some(new) => object.insert(field.to_string(), new),
                None => object.remove(field),
            };
        }
        if let Some(faults) = faults {
            object.insert("faults".to_string(), Value::from(faults));
        }
        damaged(value.to_string(), &damage)
    })
}

/// Any JSON at all, nested a little.
fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![hostile_json_value(), any::<f64>().prop_map(Value::from), any::<i64>().prop_map(Value::from)];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec((prop::sample::select(SCENARIO_FIELDS.to_vec()), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().map(|(key, value)| (key.to_string(), value)).collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: proptest::test_runner::RngSeed::Fixed(SEED), ..config() })]

    /// The presets' JSON, edited with hostile values and faults, and damaged:
    /// never a panic; a valid result runs to its bound.
    #[test]
    fn any_edited_scenario_file_is_survived(json in mutated_scenario_json()) {
        outcome(&json, Some(FUZZ_EVENTS_MAX));
    }

    /// Noise, arbitrary JSON and raw bytes: never a panic.
    #[test]
    fn any_text_as_a_scenario_file_is_survived(
        text in "\\PC{0,200}",
        value in arbitrary_json(),
        bytes in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        outcome(&text, Some(FUZZ_EVENTS_MAX));
        outcome(&value.to_string(), Some(FUZZ_EVENTS_MAX));
        outcome(&String::from_utf8_lossy(&bytes), Some(FUZZ_EVENTS_MAX));
        let _ = serde_json::from_slice::<Scenario>(&bytes);
    }
}
