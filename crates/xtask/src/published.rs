//! What a published crate shows links only to places that exist once it is
//! published: its own documentation pages, docs.rs and crates.io.
//!
//! A crate's registry page is its README, and crates.io resolves a relative
//! link there against the repository; its docs.rs pages are built from the
//! doc comments of its sources and the Markdown files they include. The
//! repository is neither, so for a published crate (one without
//! `publish = false`):
//!
//! - its README links to docs.rs, crates.io or its own headings, nothing
//!   else;
//! - its rustdoc sources (doc comments in `src/**/*.rs`, and `src/**/*.md`)
//!   link to items and pages of the documentation (intra-doc links, which
//!   rustdoc checks), docs.rs, crates.io, their own headings, or an image
//!   file inside the crate (a chart the page ships); and no source builds a
//!   link from `CARGO_PKG_REPOSITORY`;
//! - a link to docs.rs's view of a package's files
//!   (`https://docs.rs/crate/NAME/latest/source/PATH`) names a file or
//!   directory that the crate has;
//! - the README's table of features (its rows `` | `name` | yes/no | ``)
//!   lists the manifest's features and their defaults, as the crate
//!   root's list does, which is generated from the manifest.
//!
//! Links to docs.rs's rendered pages are checked against the built
//! documentation by the `doc-html` check.

use std::path::{Path, PathBuf};

use crate::docs::{link_targets, prose_lines, Problem};

/// The hosts a published crate may link to, as URL prefixes.
pub const PUBLISHED_HOSTS: [&str; 2] = ["https://docs.rs/", "https://crates.io/"];

/// The prefix of a link to docs.rs's view of a package's files.
const SOURCE_VIEW: &str = "https://docs.rs/crate/";

/// The names and directories (relative to the root) of the workspace's
/// crates under `crates/` that are published.
pub fn published_crates(root: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let mut crates = Vec::new();
    let dir = root.join("crates");
    if !dir.is_dir() {
        return Ok(crates);
    }
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let manifest = entry.path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
        if text.lines().any(|line| line.replace(' ', "") == "publish=false") {
            continue;
        }
        let name = text
            .lines()
            .find_map(|line| line.strip_prefix("name = \""))
            .and_then(|rest| rest.split('"').next())
            .ok_or_else(|| format!("{}: no package name", manifest.display()))?;
        crates.push((name.to_owned(), Path::new("crates").join(entry.file_name())));
    }
    crates.sort();
    Ok(crates)
}

/// What `path` (relative to the root) is to a published crate at `dir`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    /// The crate's README: its registry page.
    Readme,
    /// A source of its documentation: a Rust file or an included Markdown
    /// file under `src/`.
    Rustdoc,
}

/// What `path` is to the published crate at `dir`, if anything.
pub fn page(dir: &Path, path: &Path) -> Option<Page> {
    let inner = path.strip_prefix(dir).ok()?;
    let ext = path.extension().and_then(|ext| ext.to_str());
    if inner == Path::new("README.md") {
        Some(Page::Readme)
    } else if inner.starts_with("src") && matches!(ext, Some("rs" | "md")) {
        Some(Page::Rustdoc)
    } else {
        None
    }
}

/// Whether `target` is a rustdoc intra-doc link (a path to an item, with
/// an optional `#fragment`): not a URL and no file name.
pub fn is_intra_doc(target: &str) -> bool {
    let path = target.split('#').next().unwrap_or("");
    !path.is_empty()
        && !target.contains("://")
        && !path.contains('/')
        && !path.starts_with('.')
        && !matches!(path.rsplit_once('.'), Some((_, ext)) if ext.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// The problem with one link `target` of a page of the published crate at
/// `dir` (relative to `root`), if there is one. `file` is the page.
pub fn check_link(root: &Path, dir: &Path, file: &Path, kind: Page, target: &str) -> Option<String> {
    if target.starts_with('#') {
        return None;
    }
    if target.contains("://") || target.starts_with("mailto:") {
        if !PUBLISHED_HOSTS.iter().any(|host| target.starts_with(host)) {
            return Some(format!(
                "link {target} points outside the crate's pages, docs.rs and crates.io: it may not exist once published"
            ));
        }
        return check_source_view(root, target);
    }
    match kind {
        Page::Readme => Some(format!(
            "link {target} is relative: crates.io resolves it against the repository; link docs.rs or crates.io"
        )),
        Page::Rustdoc if is_intra_doc(target) => None,
        Page::Rustdoc => {
            // An image the page ships (a chart): a file of the crate.
            let joined = file.parent().unwrap_or(Path::new("")).join(target);
            let inside = joined.starts_with(dir) && !target.contains("..");
            let is_image = joined.extension().is_some_and(|ext| ext == "svg" || ext == "png");
            if inside && is_image {
                None
            } else {
                Some(format!(
                    "link {target} is a file docs.rs does not host: use an intra-doc link, docs.rs or crates.io"
                ))
            }
        }
    }
}

/// The problem with a link to docs.rs's view of a package's files, if it
/// names a workspace crate and a path that crate does not have.
fn check_source_view(root: &Path, target: &str) -> Option<String> {
    let rest = target.strip_prefix(SOURCE_VIEW)?;
    let mut parts = rest.splitn(4, '/');
    let (name, _version, view, path) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next().unwrap_or(""));
    if view != "source" {
        return None;
    }
    let crates = published_crates(root).ok()?;
    let (_, dir) = crates.iter().find(|(crate_name, _)| crate_name == name)?;
    let path = path.split(['#', '?']).next().unwrap_or("");
    if root.join(dir).join(path).exists() {
        None
    } else {
        Some(format!("link {target}: the {name} package has no {path}"))
    }
}

/// The problems of one page of the published crate at `dir`.
pub fn check_page(root: &Path, dir: &Path, path: &Path, kind: Page, text: &str) -> Vec<Problem> {
    let problem = |line: usize, message: String| Problem { path: path.to_path_buf(), line, message };
    let mut problems = Vec::new();
    let is_rust = path.extension().is_some_and(|ext| ext == "rs");
    let lines: Vec<(usize, &str)> = if is_rust {
        text.lines()
            .enumerate()
            .map(|(i, line)| (i + 1, line))
            .filter(|(_, line)| {
                let line = line.trim_start();
                line.starts_with("///") || line.starts_with("//!")
            })
            .collect()
    } else {
        prose_lines(text)
    };
    for (number, line) in lines {
        for target in link_targets(line) {
            if let Some(message) = check_link(root, dir, path, kind, &target) {
                problems.push(problem(number, message));
            }
        }
    }
    if is_rust {
        for (i, line) in text.lines().enumerate() {
            if line.contains("CARGO_PKG_REPOSITORY") {
                problems.push(problem(
                    i + 1,
                    "CARGO_PKG_REPOSITORY: the repository is no page of the published crate".to_owned(),
                ));
            }
        }
    }
    problems
}

/// The features of a manifest's `[features]` table, with whether each is
/// on by default; `default` itself and `document-features` (which only
/// documents) left out.
pub fn manifest_features(manifest: &str) -> Vec<(String, bool)> {
    let mut in_features = false;
    let mut default = Vec::new();
    let mut features = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_features = line == "[features]";
            continue;
        }
        let Some((name, value)) = line.split_once(" = ").filter(|_| in_features && !line.starts_with('#'))
        else {
            continue;
        };
        if name == "default" {
            default = value.split('"').skip(1).step_by(2).map(str::to_owned).collect();
        } else if name != "document-features" {
            features.push(name.to_owned());
        }
    }
    features.into_iter().map(|name| (name.clone(), default.contains(&name))).collect()
}

/// The features of a README's feature table (rows `` | `name` | yes/no | ``),
/// with whether each is said to be on by default.
pub fn readme_features(readme: &str) -> Vec<(String, bool)> {
    readme
        .lines()
        .filter_map(|line| {
            let mut cells = line.strip_prefix("| `")?.splitn(3, '|');
            let name = cells.next()?.trim().strip_suffix('`')?;
            let default = cells.next()?.trim();
            matches!(default, "yes" | "no").then(|| (name.to_owned(), default == "yes"))
        })
        .collect()
}

/// The problem with a README's feature table against the manifest, if any.
pub fn feature_table_problem(readme: &str, manifest: &str) -> Option<String> {
    let table = readme_features(readme);
    let features = manifest_features(manifest);
    if table.is_empty() || table == features {
        return None;
    }
    let show = |list: &[(String, bool)]| {
        list.iter()
            .map(|(name, on)| format!("{name}{}", if *on { " (default)" } else { "" }))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some(format!("the table of features says {}; Cargo.toml has {}", show(&table), show(&features)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_feature_table_follows_the_manifest() {
        let manifest = "[package]\nname = \"lib\"\n[features]\ndefault = [\"std\"]\n## Docs.\nstd = []\nserde = [\"std\"]\ndocument-features = []\n[dependencies]\nx = \"1\"\n";
        assert_eq!(manifest_features(manifest), [("std".to_owned(), true), ("serde".to_owned(), false)]);
        let table =
            "| feature | default | what |\n|---|---|---|\n| `std` | yes | a |\n| `serde` | no | b |\n";
        assert_eq!(feature_table_problem(table, manifest), None);
        assert_eq!(
            feature_table_problem("| `std` | no | a |\n", manifest).as_deref(),
            Some("the table of features says std; Cargo.toml has std (default), serde")
        );
        assert_eq!(feature_table_problem("no table here", manifest), None);
    }

    #[test]
    fn intra_doc_links_are_told_from_files() {
        for path in ["guide", "crate::guide::cap#the-cap", "RetryPolicy#defaults", "f64::MAX", "Self::call"] {
            assert!(is_intra_doc(path), "{path}");
        }
        for file in ["cap.md", "charts/full.svg", "../README.md", "#top", "https://docs.rs/x", "index.html#a"]
        {
            assert!(!is_intra_doc(file), "{file}");
        }
    }

    #[test]
    fn pages_are_the_readme_and_the_rustdoc_sources() {
        let dir = Path::new("crates/lib");
        assert_eq!(page(dir, Path::new("crates/lib/README.md")), Some(Page::Readme));
        assert_eq!(page(dir, Path::new("crates/lib/src/guide/cap.md")), Some(Page::Rustdoc));
        assert_eq!(page(dir, Path::new("crates/lib/src/lib.rs")), Some(Page::Rustdoc));
        assert_eq!(page(dir, Path::new("crates/lib/tests/t.rs")), None);
        assert_eq!(page(dir, Path::new("crates/lib/CHANGELOG.md")), None);
        assert_eq!(page(dir, Path::new("crates/other/README.md")), None);
    }
}
