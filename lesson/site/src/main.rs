//! `fencing-lab-site [DIR]`: writes the lesson's pages into the built site
//! and stamps every asset link with a content version. Run by Trunk after
//! each build (see Trunk.toml), with DIR its staging folder.

fn main() {
    let dir = std::env::args().nth(1).or_else(|| std::env::var("TRUNK_STAGING_DIR").ok());
    let Some(dir) = dir else {
        eprintln!("usage: fencing-lab-site DIR (or set TRUNK_STAGING_DIR): the built site's folder");
        std::process::exit(2);
    };
    if let Err(problem) = fencing_lab_site::build(std::path::Path::new(&dir)) {
        eprintln!("fencing-lab-site: {problem}");
        std::process::exit(1);
    }
}
