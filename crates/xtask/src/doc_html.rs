//! The `doc-html` check: the documentation as docs.rs builds it (nightly,
//! `--cfg docsrs`, all features) shows what its sources promise.
//!
//! - Feature badges: each item of [`FEATURE_BADGES`] names its feature on
//!   its page, as every item gated by a feature does under `doc_cfg`.
//! - The guide is reachable: a crate's root page links its `guide` module,
//!   whose page links every chapter.
//! - Charts: every image of a page whose source is a file (a chart of the
//!   guide) has that file's text in the page, where its script finds it.
//! - Links land: every link from a page of the crates to another of their
//!   pages with a `#fragment` finds that id there (rustdoc checks the
//!   pages, not the ids), and every link to a
//!   docs.rs page of the workspace's crates, in the repository's Markdown
//!   and sources, names a page (and an id) the built documentation has.

use std::path::{Path, PathBuf};

use crate::docs::{self, link_targets};
use crate::published::published_crates;

/// Items gated by a feature, by their page under the documentation's
/// directory, and the feature each page must name.
pub const FEATURE_BADGES: [(&str, &str); 2] =
    [("staggered/config/index.html", "serde"), ("staggered/metrics/index.html", "metrics")];

/// The prefix of a link to docs.rs's pages of the latest version.
const DOCS_RS: &str = "https://docs.rs/";

/// The values of the attribute `name` (such as `href`) in `html`.
pub fn attribute_values<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let pattern = format!(" {name}=\"");
    html.match_indices(&pattern)
        .filter_map(|(at, _)| {
            let value = &html[at + pattern.len()..];
            value.find('"').map(|end| &value[..end])
        })
        .collect()
}

/// Whether `html` has an element with the id `id`.
pub fn has_id(html: &str, id: &str) -> bool {
    html.contains(&format!(" id=\"{id}\""))
}

/// Whether the page names `feature` in a portability badge.
pub fn names_feature(html: &str, feature: &str) -> bool {
    html.match_indices("stab portability").any(|(at, _)| {
        let badge = &html[at..html.len().min(at + 400)];
        badge.contains(&format!("<code>{feature}</code>"))
    })
}

/// The problems with the charts of one page: each image whose source is a
/// relative file needs that file's text, in a data block of its name, and
/// the script that points the image at it.
pub fn chart_problems(page: &str, html: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let shipped =
        |source: &str| html.contains(&format!("<script type=\"image/svg+xml\" data-chart=\"{source}\">"));
    let mut images = 0;
    for (at, _) in html.match_indices("<img ") {
        let tag = &html[at..html[at..].find('>').map_or(html.len(), |end| at + end)];
        let Some(source) = attribute_values(tag, "src").first().copied() else { continue };
        if source.contains("://") || source.starts_with("data:") || source.contains("static.files/") {
            continue;
        }
        images += 1;
        if !shipped(source) {
            problems
                .push(format!("{page}: the chart {source} is not in the page, so docs.rs cannot show it"));
        }
    }
    if images > 0 && !html.contains("querySelectorAll('script[type=\"image/svg+xml\"][data-chart]')") {
        problems.push(format!("{page}: {images} charts and no script to show them"));
    }
    problems
}

/// `path` joined to `base` with `..` resolved, without touching the file
/// system.
fn resolve(base: &Path, path: &str) -> PathBuf {
    let mut out = base.to_path_buf();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            part => out.push(part),
        }
    }
    out
}

/// Every HTML file under `dir`.
fn pages(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            pages(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "html") {
            out.push(path);
        }
    }
    Ok(())
}

/// Every problem of the documentation built under `doc` for the repository
/// at `root`, with how many pages were read.
pub fn problems(root: &Path, doc: &Path) -> Result<(Vec<String>, usize), String> {
    let read = |path: &Path| std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()));
    let mut problems = Vec::new();

    for (page, feature) in FEATURE_BADGES {
        if !names_feature(&read(&doc.join(page))?, feature) {
            problems.push(format!("{page}: no badge names the feature {feature}"));
        }
    }

    let crates: Vec<String> =
        published_crates(root)?.into_iter().map(|(name, _)| name.replace('-', "_")).collect();
    let mut read_pages = 0;
    for name in &crates {
        let dir = doc.join(name);
        if !dir.is_dir() {
            continue;
        }
        let guide = dir.join("guide");
        if guide.is_dir() {
            if !attribute_values(&read(&dir.join("index.html"))?, "href").contains(&"guide/index.html") {
                problems.push(format!("{name}/index.html: no link to the guide"));
            }
            let index = read(&guide.join("index.html"))?;
            for entry in std::fs::read_dir(&guide).map_err(|e| e.to_string())? {
                let chapter = entry.map_err(|e| e.to_string())?.file_name().to_string_lossy().into_owned();
                let href = format!("{chapter}/index.html");
                if guide.join(&href).is_file() && !attribute_values(&index, "href").contains(&href.as_str()) {
                    problems.push(format!("{name}/guide/index.html: no link to the chapter {chapter}"));
                }
            }
        }
        let mut all = Vec::new();
        pages(&dir, &mut all)?;
        all.retain(|page| !page.starts_with(doc.join("src")));
        for page in &all {
            read_pages += 1;
            let html = read(page)?;
            let shown = page.strip_prefix(doc).unwrap_or(page).display().to_string();
            problems.extend(chart_problems(&shown, &html));
            for href in attribute_values(&html, "href") {
                let Some((target, fragment)) = href.split_once('#') else { continue };
                if href.contains("://")
                    || fragment.is_empty()
                    || fragment.starts_with(|c: char| c.is_ascii_digit())
                {
                    continue;
                }
                let target_path = if target.is_empty() {
                    page.clone()
                } else {
                    resolve(page.parent().unwrap_or(doc), target)
                };
                if !target_path.starts_with(&dir) || target_path.starts_with(doc.join("src")) {
                    continue;
                }
                // A missing page is rustdoc's to report (or, from a blanket
                // impl of another crate, not this project's).
                if let Ok(target_html) = std::fs::read_to_string(&target_path) {
                    if !has_id(&target_html, fragment) {
                        problems.push(format!("{shown}: link {href} names no id of its page"));
                    }
                }
            }
        }
    }

    // The repository's links to docs.rs pages of its own crates.
    let mut files = Vec::new();
    docs::files(root, Path::new(""), &mut files)?;
    files.retain(|path| docs::scanned(path));
    for path in files {
        let text = read(&root.join(&path))?;
        for (number, line) in text.lines().enumerate() {
            for target in link_targets(line) {
                if let Some(problem) = docs_rs_problem(doc, &crates, &target) {
                    problems.push(format!("{}:{}: {problem}", path.display(), number + 1));
                }
            }
        }
    }
    Ok((problems, read_pages))
}

/// The problem with a link to a docs.rs page of one of `crates` (by their
/// names in the documentation's directory), if the built documentation at
/// `doc` has no such page or id.
pub fn docs_rs_problem(doc: &Path, crates: &[String], target: &str) -> Option<String> {
    let rest = target.strip_prefix(DOCS_RS)?;
    let mut parts = rest.splitn(3, '/');
    let (package, _version, path) = (parts.next()?, parts.next()?, parts.next()?);
    let name = package.replace('-', "_");
    if !crates.contains(&name) || !path.starts_with(&format!("{name}/")) {
        return None;
    }
    let (path, fragment) = path.split_once('#').unwrap_or((path, ""));
    let page = doc.join(if path.ends_with('/') { format!("{path}index.html") } else { path.to_owned() });
    match std::fs::read_to_string(&page) {
        Err(_) => Some(format!("link {target}: the documentation has no page {path}")),
        Ok(html) if !fragment.is_empty() && !has_id(&html, fragment) => {
            Some(format!("link {target}: {path} has no id {fragment}"))
        }
        Ok(_) => None,
    }
}

/// Runs the check on the documentation under `doc`, for the repository
/// around the current directory.
pub fn check(doc: &Path) -> Result<String, String> {
    let root = std::env::current_dir().map_err(|e| e.to_string())?;
    let (problems, pages) = problems(&root, doc)?;
    if problems.is_empty() {
        Ok(format!(
            "doc-html: {pages} pages read; feature badges, the guide's chapters, charts and links are there\n"
        ))
    } else {
        Err(problems.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn badges_name_their_feature() {
        let page = "<span class=\"stab portability\">Available on <strong>crate feature <code>serde</code></strong> only.</span>";
        assert!(names_feature(page, "serde"));
        assert!(!names_feature(page, "tower"));
        assert!(!names_feature("<code>serde</code> in the text", "serde"));
    }

    #[test]
    fn a_chart_needs_its_text_and_the_script() {
        let script = "querySelectorAll('script[type=\"image/svg+xml\"][data-chart]')";
        let block = "<script type=\"image/svg+xml\" data-chart=\"charts/a.svg\">\n<svg/></script>";
        let image = "<p><img src=\"charts/a.svg\" alt=\"a\" /></p>";
        assert!(chart_problems("p", &format!("{image}{block}<script>{script}</script>")).is_empty());
        assert_eq!(
            chart_problems("p", &format!("{image}<script>{script}</script>")),
            ["p: the chart charts/a.svg is not in the page, so docs.rs cannot show it"]
        );
        assert_eq!(
            chart_problems("p", &format!("{image}{block}")),
            ["p: 1 charts and no script to show them"]
        );
        assert!(chart_problems("p", "<img src=\"../static.files/rust-logo.svg\">").is_empty());
    }

    #[test]
    fn docs_rs_links_must_land() {
        let doc = tempfile::tempdir().unwrap();
        let guide = doc.path().join("lib/guide/cap");
        std::fs::create_dir_all(&guide).unwrap();
        std::fs::write(guide.join("index.html"), "<h2 id=\"the-cap\">").unwrap();
        let crates = ["lib".to_owned()];
        let check = |target: &str| docs_rs_problem(doc.path(), &crates, target);
        assert_eq!(check("https://docs.rs/lib/latest/lib/guide/cap/index.html#the-cap"), None);
        assert_eq!(check("https://docs.rs/lib/latest/lib/guide/cap/"), None);
        assert_eq!(
            check("https://docs.rs/lib/latest/lib/guide/cap/index.html#gone"),
            Some("link https://docs.rs/lib/latest/lib/guide/cap/index.html#gone: lib/guide/cap/index.html has no id gone".to_owned())
        );
        assert_eq!(
            check("https://docs.rs/lib/latest/lib/guide/terms/index.html"),
            Some("link https://docs.rs/lib/latest/lib/guide/terms/index.html: the documentation has no page lib/guide/terms/index.html".to_owned())
        );
        assert_eq!(check("https://docs.rs/other/latest/other/index.html"), None, "not a crate of ours");
        assert_eq!(check("https://docs.rs/lib"), None, "the crate's front page");
    }
}
