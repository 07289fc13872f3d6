//! A question set (or the built-in quiz) as a SCORM 1.2 package for an LMS
//! such as Moodle: `imsmanifest.xml`, a launch page, and the site's own
//! files the quiz needs. The launch page (`scorm.html`, written here, and
//! `static/scorm.js`) finds the LMS's run-time API, frames the quiz with
//! `origin=` set to its own origin, and turns the statements the quiz
//! already reports (`src/quiz/report.rs`) into SCORM calls: the package adds no
//! second copy of the quiz or of its marking.
//!
//! Pure: the page fetches the files and hands them over; this writes the
//! manifest and the launch page and packs everything (`zip`).

pub mod zip;

use fencing_sim::markup::escape;
use zip::Entry;

/// The mastery score (percent right at the first try) a new package asks
/// for, and the one a score typed by hand falls back to when unreadable.
pub const MASTERY_DEFAULT_PERCENT: u8 = 80;
/// The launch page's and its script's names inside the package.
pub const LAUNCH_PAGE: &str = "scorm.html";
pub const LAUNCH_SCRIPT: &str = "scorm.js";
/// The files of the site every package carries: the page, its loader, its
/// theme and styles, and the launch script. The build's own files are
/// `Build::files`; nothing else (the lesson, the other builds) goes in.
pub const SITE_FILES: [&str; 6] = ["index.html", "boot.js", "theme.js", "main.css", "print.css", LAUNCH_SCRIPT];

/// Which of the site's builds run the packaged quiz, as `static/boot.js`
/// picks them from the link: the instructors' build for a question or a set;
/// the quiz's own build for the built-in quiz. Inside a package the quiz
/// shows no site tabs and no link to another view (`origin=` says it is
/// packaged), so no other build is needed: a package is only a quiz.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    Teach,
    Quiz,
}

impl Build {
    pub fn files(self) -> &'static [&'static str] {
        match self {
            Build::Teach => &["fencing-lab-teach.js", "fencing-lab-teach_bg.wasm"],
            Build::Quiz => &["fencing-lab-quiz.js", "fencing-lab-quiz_bg.wasm"],
        }
    }
}

/// What one package launches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    /// The activity's title in the LMS (plain text).
    pub title: String,
    /// The quiz's query in the site, as its link spells it ("set=…&embed=quiz",
    /// "view=quiz"): the launch page adds `origin=`.
    pub quiz_query: String,
    pub build: Build,
    /// Passed at or above this percentage (0–100) of first tries right,
    /// unless the LMS sets its own (`cmi.student_data.mastery_score`).
    pub mastery_percent: u8,
}

/// Every file the package needs from the site, by its name in the built site.
pub fn site_files(build: Build) -> Vec<&'static str> {
    SITE_FILES.into_iter().chain(build.files().iter().copied()).collect()
}

/// Reads a mastery score typed by hand: a whole percentage from 0 to 100
/// ("80", "80 %"). Anything else is an error saying what will do; the
/// caller keeps `MASTERY_DEFAULT_PERCENT` then.
pub fn parse_mastery(text: &str) -> Result<u8, String> {
    let digits = text.trim().trim_end_matches('%').trim();
    match digits.parse::<u8>() {
        Ok(percent) if percent <= 100 => Ok(percent),
        _ => Err(format!(
            "the mastery score must be a whole percentage from 0 to 100, not {:?}: {MASTERY_DEFAULT_PERCENT} is used",
            text.chars().take(20).collect::<String>()
        )),
    }
}

impl Package {
    /// A short stable id for the package (its manifest's identifier and its
    /// file name): a hash of what it launches and how it is passed.
    pub fn id(&self) -> String {
        let text = format!("{}|{}", self.quiz_query, self.mastery_percent);
        format!("{:08x}", fencing_sim::fnv1a32(text.as_bytes()))
    }

    /// The download's file name.
    pub fn file_name(&self) -> String {
        format!("fencing-lab-{}-scorm12.zip", self.id())
    }

    /// `imsmanifest.xml`: one organization with one SCO (the launch page),
    /// the mastery score, and every file of the package listed.
    pub fn manifest(&self, files: &[&str]) -> String {
        let title = escape(&self.title);
        let listed: String = files.iter().map(|file| format!("      <file href=\"{}\"/>\n", escape(file))).collect();
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="fencing-lab-{id}" version="1.0"
    xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
    xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="fencing-lab-org">
    <organization identifier="fencing-lab-org">
      <title>{title}</title>
      <item identifier="fencing-lab-quiz" identifierref="fencing-lab-sco" isvisible="true">
        <title>{title}</title>
        <adlcp:masteryscore>{mastery}</adlcp:masteryscore>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="fencing-lab-sco" type="webcontent" adlcp:scormtype="sco" href="{LAUNCH_PAGE}">
{listed}    </resource>
  </resources>
</manifest>
"#,
            id = self.id(),
            mastery = self.mastery_percent,
        )
    }

    /// The launch page: no inline script or style (the site's CSP), what it
    /// launches and the mastery score as data for `scorm.js`. Not the site's
    /// `theme.js`: its keys (P for projector mode) belong to the quiz's frame.
    pub fn launch_page(&self) -> String {
        format!(
            r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="main.css">
<script src="{LAUNCH_SCRIPT}" defer></script>
</head>
<body class="scorm-launch" data-quiz="{quiz}" data-mastery="{mastery}">
<main id="main">
<p id="scorm-status" class="scorm-status" role="status" data-testid="scorm-status">Looking for your course's LMS…</p>
<iframe id="scorm-quiz" class="scorm-quiz" title="{title}" data-testid="scorm-quiz"></iframe>
</main>
</body>
</html>
"#,
            title = escape(&self.title),
            quiz = escape(&self.quiz_query),
            mastery = self.mastery_percent,
        )
    }

    /// The package's bytes: `site` holds the site's files (`site_files`),
    /// by name; a missing one is an error naming it, never a broken package.
    pub fn archive(&self, site: Vec<Entry>) -> Result<Vec<u8>, String> {
        let needed = site_files(self.build);
        if let Some(missing) = needed.iter().find(|name| !site.iter().any(|entry| entry.path == **name)) {
            return Err(format!("the site's file {missing} is missing"));
        }
        let mut files: Vec<&str> = vec![LAUNCH_PAGE];
        files.extend(site.iter().map(|entry| entry.path.as_str()));
        let mut entries = vec![
            Entry { path: "imsmanifest.xml".to_string(), bytes: self.manifest(&files).into_bytes() },
            Entry { path: LAUNCH_PAGE.to_string(), bytes: self.launch_page().into_bytes() },
        ];
        entries.extend(site.into_iter().map(|entry| match entry.path.as_str() {
            "index.html" => Entry { bytes: packaged_page(&String::from_utf8_lossy(&entry.bytes)).into_bytes(), ..entry },
            _ => entry,
        }));
        zip::write(&entries)
    }
}

/// The site's page as a package carries it: without the first screens the
/// site draws for its own links (a package's link is never one of them, and
/// they link to views the package lacks), and with a `<noscript>` that
/// points nowhere (the lesson it names is not in the package).
pub fn packaged_page(page: &str) -> String {
    let mut page = cut_between(page, "<template id=\"first-screens\"", "</template>", "");
    page = cut_between(
        &page,
        "<noscript>",
        "</noscript>",
        "<noscript><p class=\"notice\">This quiz needs JavaScript and WebAssembly.</p></noscript>",
    );
    page
}

/// `text` with the first span from `start` through `end` replaced by `with`
/// (unchanged when either is missing).
fn cut_between(text: &str, start: &str, end: &str, with: &str) -> String {
    let Some(from) = text.find(start) else { return text.to_string() };
    let Some(to) = text[from..].find(end).map(|at| from + at + end.len()) else { return text.to_string() };
    format!("{}{with}{}", &text[..from], &text[to..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package() -> Package {
        Package {
            title: "Week 6 <locks> & \"leases\"".to_string(),
            quiz_query: "set=abc.def&embed=quiz".to_string(),
            build: Build::Teach,
            mastery_percent: 75,
        }
    }

    #[test]
    fn mastery_typed_by_hand_is_read_or_refused_with_a_reason() {
        assert_eq!(parse_mastery("80"), Ok(80));
        assert_eq!(parse_mastery(" 100 % "), Ok(100));
        assert_eq!(parse_mastery("0"), Ok(0));
        for bad in ["", "101", "-5", "7.5", "eighty", "99999999999"] {
            let why = parse_mastery(bad).unwrap_err();
            assert!(why.contains("from 0 to 100") && why.contains("80 is used"), "{bad}: {why}");
        }
    }

    #[test]
    fn the_manifest_names_the_sco_its_mastery_and_every_file_escaped() {
        let xml = package().manifest(&["scorm.html", "index.html", "a&b.js"]);
        assert!(xml.contains("<adlcp:masteryscore>75</adlcp:masteryscore>"));
        assert!(xml.contains(r#"adlcp:scormtype="sco" href="scorm.html""#));
        assert!(xml.contains("<title>Week 6 &lt;locks&gt; &amp; &quot;leases&quot;</title>"));
        assert!(xml.contains(r#"<file href="a&amp;b.js"/>"#));
        assert!(xml.contains("<schemaversion>1.2</schemaversion>"));
    }

    #[test]
    fn the_launch_page_carries_its_quiz_as_data_and_no_inline_script() {
        let html = package().launch_page();
        assert!(html.contains(r#"data-quiz="set=abc.def&amp;embed=quiz" data-mastery="75""#));
        assert!(html.contains(r#"<script src="scorm.js" defer></script>"#));
        assert_eq!(html.matches("<script").count(), 1, "only the launch script, loaded from its file");
        assert!(!html.contains("style="));
    }

    #[test]
    fn a_package_holds_the_manifest_the_launch_page_and_the_build_it_needs() {
        let site: Vec<Entry> =
            site_files(Build::Teach).into_iter().map(|name| Entry { path: name.to_string(), bytes: name.as_bytes().to_vec() }).collect();
        assert!(site.iter().any(|entry| entry.path == "fencing-lab-teach_bg.wasm"));
        assert!(!site.iter().any(|entry| entry.path.starts_with("fencing-lab-web")), "not the other builds");
        let zip = package().archive(site.clone()).unwrap();
        assert!(zip.starts_with(b"PK\x03\x04\x14\x00\x00\x08\x00\x00\x00\x00\x21\x00"));
        assert!(zip.windows(15).any(|window| window == b"imsmanifest.xml"));
        let without_wasm: Vec<Entry> = site.into_iter().filter(|entry| !entry.path.ends_with(".wasm")).collect();
        assert_eq!(package().archive(without_wasm).unwrap_err(), "the site's file fencing-lab-teach_bg.wasm is missing");
    }

    #[test]
    fn the_packaged_page_has_no_first_screens_and_no_link_out() {
        let page = "<head></head><body><p id=\"loading\">…</p><template id=\"first-screens\" data-keys=\"a\"><a href=\"?preset=x\">x</a></template>\
                    <noscript><p>Needs JS. <a href=\"lesson/index.html\">The lesson</a> reads without it.</p></noscript></body>";
        let packaged = packaged_page(page);
        assert!(!packaged.contains("href"), "{packaged}");
        assert!(packaged.contains("<p id=\"loading\">") && packaged.contains("This quiz needs JavaScript"), "{packaged}");
        assert_eq!(packaged_page("plain"), "plain");
    }

    #[test]
    fn the_id_follows_what_is_launched_and_the_mastery() {
        let other = Package { mastery_percent: 90, ..package() };
        assert_ne!(package().id(), other.id());
        assert_eq!(package().id(), package().id());
        assert!(package().file_name().ends_with("-scorm12.zip"));
    }
}
