//! The reference code, highlighted at build time: keywords, strings,
//! comments and numbers get a class each (colour plus weight or style, never
//! colour alone), and the store's check (compare the token, refuse or write)
//! is marked so the eye lands on the one part that provides safety.

use crate::escape;

pub struct Listing {
    pub id: &'static str,
    pub name: &'static str,
    pub file: &'static str,
    pub source: &'static str,
    keywords: &'static [&'static str],
    /// Where a line comment starts.
    comment: &'static str,
}

pub const LISTINGS: &[Listing] = &[
    Listing {
        id: "rust",
        name: "Rust",
        file: "fencing.rs",
        source: include_str!("../../code/fencing.rs"),
        keywords: &[
            "as", "const", "else", "enum", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
            "return", "self", "Self", "struct", "trait", "true", "type", "use", "where", "while", "dyn", "Some", "None", "Ok", "Err",
        ],
        comment: "//",
    },
    Listing {
        id: "python",
        name: "Python",
        file: "fencing.py",
        source: include_str!("../../code/fencing.py"),
        keywords: &[
            "and", "as", "assert", "class", "def", "elif", "else", "except", "False", "for", "from", "if", "import", "in", "is", "lambda",
            "None", "not", "or", "pass", "raise", "return", "self", "True", "try", "while", "with", "yield",
        ],
        comment: "#",
    },
    Listing {
        id: "go",
        name: "Go",
        file: "fencing.go",
        source: include_str!("../../code/fencing.go"),
        keywords: &[
            "break",
            "case",
            "const",
            "continue",
            "default",
            "defer",
            "else",
            "false",
            "for",
            "func",
            "go",
            "if",
            "import",
            "interface",
            "map",
            "nil",
            "package",
            "range",
            "return",
            "struct",
            "switch",
            "true",
            "type",
            "var",
        ],
        comment: "//",
    },
    Listing {
        id: "typescript",
        name: "TypeScript",
        file: "fencing.ts",
        source: include_str!("../../code/fencing.ts"),
        keywords: &[
            "boolean",
            "class",
            "const",
            "else",
            "export",
            "extends",
            "false",
            "for",
            "from",
            "function",
            "if",
            "implements",
            "import",
            "interface",
            "let",
            "new",
            "null",
            "number",
            "of",
            "private",
            "public",
            "readonly",
            "return",
            "string",
            "this",
            "true",
            "type",
            "undefined",
            "void",
            "while",
        ],
        comment: "//",
    },
    Listing {
        id: "java",
        name: "Java",
        file: "Fencing.java",
        source: include_str!("../../code/Fencing.java"),
        keywords: &[
            "boolean",
            "catch",
            "class",
            "else",
            "extends",
            "false",
            "final",
            "for",
            "if",
            "implements",
            "import",
            "int",
            "interface",
            "long",
            "new",
            "null",
            "package",
            "private",
            "public",
            "record",
            "return",
            "static",
            "this",
            "throw",
            "throws",
            "true",
            "try",
            "var",
            "void",
            "while",
        ],
        comment: "//",
    },
];

/// The code panel: every listing, each readable without script; the lesson's
/// script turns them into tabs and adds a copy button.
pub fn panel() -> String {
    let listings: Vec<String> = LISTINGS.iter().map(listing).collect();
    format!(r#"<div class="code-panel" data-code-panel>{}</div>"#, listings.join(""))
}

fn listing(listing: &Listing) -> String {
    let (id, name, file) = (listing.id, listing.name, listing.file);
    format!(
        r##"<section class="code-listing" id="code-{id}" data-lang="{id}" aria-labelledby="code-{id}-title"><h2 class="code-title" id="code-{id}-title">{name} <span class="code-file">{file}</span></h2><p class="code-actions"><a href="#code-{id}-check">The store's check ↓</a><a href="code/{file}" download>Download {file}</a></p><pre class="code" tabindex="0" aria-label="{name} source, the store's check highlighted"><code>{}</code></pre></section>"##,
        lines(listing).replacen(r#"<span class="line check">"#, &format!(r#"<span class="line check" id="code-{id}-check">"#), 1)
    )
}

/// The source as HTML, one `<span class="line">` per line; the check's lines marked.
pub fn lines(listing: &Listing) -> String {
    let marked = check_lines(listing.source);
    let tokens = tokens(listing);
    let mut html = String::new();
    let mut line = 0;
    let open = |html: &mut String, line: usize| {
        let class = if marked.contains(&line) { "line check" } else { "line" };
        html.push_str(&format!(r#"<span class="{class}">"#));
    };
    open(&mut html, line);
    for (class, text) in tokens {
        for (index, piece) in text.split('\n').enumerate() {
            if index > 0 {
                html.push_str("</span>\n");
                line += 1;
                open(&mut html, line);
            }
            if piece.is_empty() {
                continue;
            }
            match class {
                Some(class) => html.push_str(&format!(r#"<span class="{class}">{}</span>"#, escape(piece))),
                None => html.push_str(&escape(piece)),
            }
        }
    }
    html.push_str("</span>");
    html
}

/// The lines of the store's check: from the comparison with the highest
/// token to the line that records the new one.
pub fn check_lines(source: &str) -> Vec<usize> {
    let squashed = |line: &str| line.to_lowercase().replace(['_', ' '], "");
    let lines: Vec<&str> = source.lines().collect();
    let Some(start) = lines.iter().position(|line| squashed(line).contains("if(token<") || squashed(line).contains("iftoken<")) else {
        return Vec::new();
    };
    let end = lines[start + 1..].iter().position(|line| {
        let line = squashed(line);
        line.contains("highesttoken") && line.contains('=') && !line.contains("<")
    });
    end.map_or_else(Vec::new, |end| (start..=start + 1 + end).collect())
}

/// The source cut into runs of text, each with its class (or none).
fn tokens(listing: &Listing) -> Vec<(Option<&'static str>, &'static str)> {
    let source = listing.source;
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        let rest = &source[index..];
        let (class, length) = if rest.starts_with(listing.comment) {
            (Some("com"), rest.find('\n').unwrap_or(rest.len()))
        } else if let Some(inside) = rest.strip_prefix("\"\"\"") {
            (Some("str"), inside.find("\"\"\"").map_or(rest.len(), |end| end + 6))
        } else if let Some(quote) = string_quote(listing, rest) {
            (Some("str"), string_length(rest, quote))
        } else if bytes[index].is_ascii_digit() {
            (Some("num"), rest.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(rest.len()))
        } else if bytes[index].is_ascii_alphabetic() || bytes[index] == b'_' {
            let length = rest.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(rest.len());
            let word = &rest[..length];
            (listing.keywords.contains(&word).then_some("kw"), length)
        } else {
            (None, rest.chars().next().map_or(1, char::len_utf8))
        };
        tokens.push((class, &source[index..index + length]));
        index += length;
    }
    tokens
}

/// The quote that opens a string here, if one does. In Rust a `'` starts a
/// lifetime more often than a character, so only `"` counts there.
fn string_quote(listing: &Listing, rest: &str) -> Option<char> {
    let quote = rest.chars().next()?;
    let quotes: &[char] = match listing.id {
        "rust" | "go" | "java" => &['"'],
        _ => &['"', '\'', '`'],
    };
    quotes.contains(&quote).then_some(quote)
}

/// Up to and including the closing quote (escapes skipped), or the line's end.
fn string_length(rest: &str, quote: char) -> usize {
    let mut escaped = false;
    for (offset, c) in rest.char_indices().skip(1) {
        match c {
            '\\' if !escaped => escaped = true,
            '\n' if quote != '`' => return offset,
            c if c == quote && !escaped => return offset + c.len_utf8(),
            _ => escaped = false,
        }
    }
    rest.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listing_marks_its_check_and_keeps_every_character() {
        for listing in LISTINGS {
            let marked = check_lines(listing.source);
            assert!((3..=6).contains(&marked.len()), "{}: {marked:?}", listing.id);
            let first = listing.source.lines().nth(marked[0]).unwrap();
            assert!(first.contains('<') && first.to_lowercase().contains("highest"), "{}: {first}", listing.id);
            let html = lines(listing);
            assert_eq!(html.matches(r#"<span class="line check">"#).count(), marked.len(), "{}", listing.id);
            assert_eq!(html.matches("<span class=\"line").count(), listing.source.lines().count() + 1, "{}", listing.id);
            let text = strip_tags(&html).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'");
            assert_eq!(text.replace("&amp;", "&"), listing.source, "{}: the highlighted text differs", listing.id);
        }
    }

    #[test]
    fn keywords_strings_and_comments_get_their_classes() {
        let html = lines(&LISTINGS[1]);
        assert!(html.contains(r#"<span class="kw">def</span>"#));
        assert!(html.contains(r#"<span class="com"># a closure"#), "{html}");
        assert!(html.contains(r#"<span class="str">&quot;report:token&quot;</span>"#));
        assert!(html.contains(r#"<span class="num">10_000</span>"#));
    }

    fn strip_tags(html: &str) -> String {
        let mut text = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        text
    }
}
