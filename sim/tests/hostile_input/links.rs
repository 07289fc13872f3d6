//! The first door: a shared link.

use super::*;

/// Every key a link can carry.
const KNOWN_KEYS: &[&str] = &[
    "preset", "seed", "fencing", "ttl_ms", "work_ms", "workers", "renewal", "check", "release", "lock", "store", "fault", "pause_ms",
    "cursor", "compare",
];

// ---------------------------------------------------------------- links --

/// Parses a link and checks what must hold of every outcome; returns it.
fn parse_checked(query: &str) -> (Permalink, Vec<String>) {
    let (link, notices) = permalink::parse(query);
    assert_eq!(link.scenario.validate(), Ok(()), "a parsed link always gives a valid scenario: {query:?}");
    for notice in &notices {
        assert!(!notice.is_empty(), "empty notice for {query:?}");
        assert!(notice.chars().count() <= NOTICE_CHARS_MAX, "a notice repeats too much of {query:?}: {notice}");
        assert!(!notice.chars().any(char::is_control), "a control character reached a notice: {notice:?}");
    }
    // Every non-blank segment the parser reads must be understood, or noticed.
    let segments = segments(query);
    let unknown_key = segments.iter().take(PAIRS_MAX).any(|(key, _)| !KNOWN_KEYS.contains(&key.as_str()));
    let unknown_preset = segments.iter().take(PAIRS_MAX).any(|(key, value)| key == "preset" && presets::find(value).is_none());
    if unknown_key || unknown_preset || segments.len() > PAIRS_MAX {
        assert!(!notices.is_empty(), "{query:?} had something ignored but no notice");
    }
    (link, notices)
}

/// The decoded, trimmed (key, value) of each non-blank segment: an
/// independent reading of what `permalink::parse` documents.
fn segments(query: &str) -> Vec<(String, String)> {
    let query = query.strip_prefix('?').unwrap_or(query);
    query
        .split('&')
        .filter(|segment| !segment.trim().is_empty())
        .map(|segment| {
            let (key, value) = segment.split_once('=').unwrap_or((segment, ""));
            (percent_decode(key).trim().to_string(), percent_decode(value).trim().to_string())
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        let hex = |at: usize| bytes.get(at).and_then(|byte| char::from(*byte).to_digit(16));
        match (bytes[index], hex(index + 1), hex(index + 2)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                index += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                index += 1;
            }
            (byte, _, _) => {
                out.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The one notice a link gives, which must contain `wanted`.
fn notice_contains(query: &str, wanted: &str) {
    let (_, notices) = parse_checked(query);
    assert!(notices.iter().any(|notice| notice.contains(wanted)), "{query:?}: wanted {wanted:?} in {notices:?}");
}

#[test]
fn links_table() {
    // (query, a substring of some notice; "" = no notice at all)
    let cases: &[(&str, &str)] = &[
        ("", ""),
        ("?", ""),
        ("&&&", ""),
        ("preset=nope", "there is no such preset (the presets are gc-pause, "),
        ("preset=", "there is no such preset"),
        ("ttl_ms=18446744073709551616", "ignored ttl_ms=18446744073709551616: the lease must be from 1 to 3600000 ms"),
        ("ttl_ms=99999999999999999999999999999999", "the lease must be from 1 to 3600000 ms"),
        ("ttl_ms=1e30", "ignored ttl_ms=1e30: not a whole number of milliseconds"),
        ("ttl_ms=-5", "ignored ttl_ms=-5: the lease cannot be negative"),
        ("ttl_ms=-0", "not a whole number of milliseconds"),
        ("ttl_ms=NaN", "ignored ttl_ms=NaN: not a whole number of milliseconds"),
        ("ttl_ms=inf", "not a whole number of milliseconds"),
        ("ttl_ms=-inf", "not a whole number of milliseconds"),
        ("ttl_ms=0x10", "not a whole number of milliseconds"),
        ("ttl_ms=５０００", "not a whole number of milliseconds"),
        ("ttl_ms=0", "the lease must be from 1 to 3600000 ms"),
        ("ttl_ms=%35%30%30%30", ""),
        ("ttl_ms=%ff", "ignored ttl_ms=\u{FFFD}: not a whole number of milliseconds"),
        ("ttl_ms=%", "not a whole number of milliseconds"),
        ("ttl_ms=%ZZ", "not a whole number of milliseconds"),
        ("seed=18446744073709551615", ""),
        ("seed=18446744073709551616", "the seed is a whole number from 0 to 18446744073709551615"),
        ("seed=-1", "the seed is a whole number"),
        ("seed=NaN", "the seed is a whole number"),
        ("workers=256", "the number of workers is 2 to 5"),
        ("workers=-1", "the number of workers is 2 to 5"),
        ("cursor=4294967296", "the cursor is an event number from 0 to 4294967295"),
        ("cursor=-1", "the cursor is an event number"),
        ("pause_ms=3600001", "a pause must be from 0 to 3600000 ms"),
        ("colour=red", "ignored colour=red: there is no setting called colour"),
        ("%ZZ=1", "there is no setting called %ZZ"),
        ("=5", "there is no setting called "),
        ("colour=%07%1b[31m", "ignored colour=\u{FFFD}\u{FFFD}[31m"),
        ("fault=pause:A:at18446744073709551615:1", "times and lengths must be at most 3600000 ms"),
        ("fault=pause:A:at1:18446744073709551616", "this fault looks like pause:A:write1:15000"),
        ("fault=jump:L1:0:-9223372036854775808", "times and lengths must be at most 3600000 ms"),
        ("fault=jump:L1:0:-9223372036854775809", "this fault looks like jump:L3:2000:10000"),
        ("fault=drift:L1:-2147483648", "clock drift must be within ±500000 ppm"),
        ("fault=drift:L1:2147483648", "this fault looks like drift:L1:-2000"),
        ("fault=drift:L1:NaN", "this fault looks like drift:L1:-2000"),
        ("fault=pause:A:write256:5", "this fault looks like pause:A:write1:15000"),
        ("fault=pause:A:write0:5", "write 0 does not exist"),
        ("fault=crash:E:5", "there is no E in a scenario with 2 workers"),
        ("fault=crash:store:5", "this fault cannot strike store"),
        ("fault=nodecrash:L9:5:5", "unknown actor \"L9\""),
        ("fault=meteor", "a fault starts with its kind"),
        ("fault=:::::", "a fault starts with its kind"),
        ("fault=pause", "this fault looks like"),
    ];
    for (query, wanted) in cases {
        let (_, notices) = parse_checked(query);
        if wanted.is_empty() {
            assert_eq!(notices, Vec::<String>::new(), "{query:?}");
        } else {
            notice_contains(query, wanted);
        }
    }
}

#[test]
fn a_plus_is_a_space_in_a_link() {
    // Form encoding: "+5" is " 5", which trims to 5. Not an error.
    let (link, notices) = parse_checked("ttl_ms=+5");
    assert_eq!((link.scenario.ttl_ms, notices.len()), (5, 0));
    notice_contains("ttl_ms=%2B5", "ignored ttl_ms=+5: not a whole number of milliseconds");
}

#[test]
fn links_with_non_utf8_bytes_are_read_lossily() {
    let bytes = b"ttl_ms=\xff\xfe&fencing=on";
    let (link, notices) = parse_checked(&String::from_utf8_lossy(bytes));
    assert!(link.scenario.fencing, "the good pair after the bad bytes still counts");
    assert_eq!(notices, ["ignored ttl_ms=\u{FFFD}\u{FFFD}: not a whole number of milliseconds"]);
}

/// Parses `query` and returns the notices and how long it took.
fn timed_parse(query: &str) -> (Vec<String>, Duration) {
    let started = Instant::now();
    let (_, notices) = parse_checked(query);
    (notices, started.elapsed())
}

#[test]
fn huge_links_cost_little() {
    let (notices, took) = timed_parse(&"ttl_ms=5000&".repeat(10_000));
    assert_eq!(notices, [format!("ignored the last {} settings: a link carries at most 64", 10_000 - PAIRS_MAX)]);
    println!("10^4 repeated pairs: {took:?}");
    let (notices, took) = timed_parse(&"colour=red&".repeat(10_000));
    assert_eq!(notices.len(), PAIRS_MAX + 1, "one per pair read, one for the rest");
    println!("10^4 unknown pairs: {took:?}");
    let (notices, took) = timed_parse(&"a&".repeat(1_000_000));
    assert_eq!(notices[0], format!("ignored the last {} settings: a link carries at most 64", 1_000_000 - PAIRS_MAX));
    println!("10^6 pairs: {took:?}");
    let (notices, took) = timed_parse(&format!("ttl_ms={}", "9".repeat(10_000_000)));
    assert_eq!(notices.len(), 1);
    assert!(notices[0].contains('…') && notices[0].ends_with("the lease must be from 1 to 3600000 ms"), "{notices:?}");
    println!("a 10 MB value: {took:?}");
    let (notices, took) = timed_parse(&"fault=crash:B:1&".repeat(10_000));
    assert!(notices.iter().any(|notice| notice.contains("a link carries at most 64")), "{notices:?}");
    assert!(notices.iter().any(|notice| notice.contains("ignored the last 32 faults: a scenario has at most 32")), "{notices:?}");
    println!("10^4 faults: {took:?}");
    assert!(took < Duration::from_secs(2));
}

/// Text that looks like link values: numbers of every size and sign, float
/// words, escapes, and noise.
fn hostile_value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u128>().prop_map(|n| n.to_string()),
        (0..70_000u64).prop_map(|n| n.to_string()),
        prop::sample::select(vec![
            "",
            "-0",
            "+5",
            "NaN",
            "nan",
            "inf",
            "-inf",
            "Infinity",
            "1e30",
            "1.5",
            "0x10",
            "18446744073709551616",
            "%",
            "%%",
            "%2",
            "%ZZ",
            "%ff",
            "%00",
            "%26",
            "%3D",
            "+",
            "on",
            "off",
            "none",
            "cad",
            "del",
            "redlock",
            "write1",
            "at5000",
            "A",
            "L1",
            "store",
            "fencing",
            "gc-pause",
            "nope",
            "\u{202e}",
            "\u{0}",
        ])
        .prop_map(str::to_string),
        "\\PC{0,16}",
        "(%[0-9a-fA-F]{2}){0,6}",
    ]
}

fn hostile_key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(KNOWN_KEYS.to_vec()).prop_map(str::to_string),
        1 => "[a-z_%+]{0,8}",
        1 => "\\PC{0,8}",
    ]
}

fn hostile_fault() -> impl Strategy<Value = String> {
    let kind = prop::sample::select(vec!["pause", "delay", "crash", "lose", "partition", "drift", "jump", "nodecrash", "none", "x"]);
    (kind, prop::collection::vec(hostile_value(), 0..5)).prop_map(|(kind, parts)| {
        std::iter::once(kind.to_string()).chain(parts).collect::<Vec<_>>().join(if kind.len() % 2 == 0 { ":" } else { "%3A" })
    })
}

/// One `key=value` piece of a hostile link.
fn hostile_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (hostile_key(), hostile_value()).prop_map(|(key, value)| format!("{key}={value}")),
        1 => hostile_fault().prop_map(|fault| format!("fault={fault}")),
        1 => prop::sample::select(presets::PRESETS.iter().map(|preset| preset.id).collect::<Vec<_>>()).prop_map(|id| format!("preset={id}")),
        1 => "\\PC{0,12}",
    ]
}

/// A piece that is certainly ignored, whatever surrounds it.
fn ignored_piece() -> impl Strategy<Value = String> {
    let bad_number = prop::sample::select(vec!["-1", "NaN", "inf", "1e30", "18446744073709551616", "abc", "", "1.5", "%ff"]);
    prop_oneof![
        "zz[a-z0-9]{0,8}=[a-z0-9]{0,8}".prop_map(|piece| piece.to_string()),
        bad_number.clone().prop_map(|value| format!("ttl_ms={value}")),
        bad_number.clone().prop_map(|value| format!("seed={value}")),
        bad_number.clone().prop_map(|value| format!("workers={value}")),
        bad_number.prop_map(|value| format!("cursor={value}")),
        "[a-z]{1,8}".prop_map(|word| format!("preset=no-{word}")),
        "[a-z]{1,8}".prop_map(|word| format!("fencing=x{word}")),
        Just("fault=meteor:A:5".to_string()),
        Just("fault=pause:A:write1".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: proptest::test_runner::RngSeed::Fixed(SEED), ..config() })]

    /// Any text, any bytes, any escapes: no panic, a valid scenario that
    /// runs to its bound, and a notice for any unknown key or preset.
    #[test]
    fn any_link_text_is_survived(
        text in "\\PC{0,300}",
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        escapes in prop::collection::vec(any::<u8>(), 0..40),
        pieces in prop::collection::vec(hostile_piece(), 0..12),
    ) {
        parse_checked(&text);
        parse_checked(&String::from_utf8_lossy(&bytes));
        let escaped: String = escapes.iter().map(|byte| format!("%{byte:02X}")).collect();
        parse_checked(&escaped);
        let (link, _) = parse_checked(&pieces.join("&"));
        let trace = run(&link.scenario).expect("a parsed link is valid");
        prop_assert!(trace.events.len() <= link.scenario.events_max as usize + 1 + KNOWN_OVERSHOOT_MAX);
    }

    /// Whatever else a link holds, a piece that is certainly ignored (among
    /// the first 64) always produces a notice.
    #[test]
    fn an_ignored_piece_is_always_noticed(
        pieces in prop::collection::vec(hostile_piece(), 0..16),
        ignored in ignored_piece(),
        at in any::<prop::sample::Index>(),
        repeats in 0..6usize,
    ) {
        let mut pieces: Vec<String> = pieces.into_iter().filter(|piece| !piece.trim().is_empty()).collect();
        pieces.truncate(PAIRS_MAX - 1);
        let at = at.index(pieces.len() + 1);
        pieces.insert(at, ignored.clone());
        let query = std::iter::repeat_n(pieces.join("&"), repeats + 1).collect::<Vec<_>>().join("&");
        let (_, notices) = parse_checked(&query);
        prop_assert!(!notices.is_empty(), "{:?} was ignored silently in {:?}", ignored, query);
    }
}

// ------------------------------------------------------------ scenarios --
