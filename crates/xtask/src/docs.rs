//! The `docs` check: what a user reads stands on its own.
//!
//! - No internal reference: the words `SPEC`, `seed 00…` (the numbered
//!   documents the project started from) and "the issue" appear nowhere a
//!   user looks: the sources of every crate (doc comments, help texts and
//!   output strings live there), their examples and manifests, and every
//!   Markdown and SVG file of the repository (README, guide, crate READMEs,
//!   changelog, charts). Tests, which users do not read, are not scanned.
//! - No dangling link: every relative link in every Markdown file names a
//!   file or directory inside the repository, and its `#fragment`, if any,
//!   a heading of the Markdown file it points to. A doc comment links to
//!   no relative Markdown file (docs.rs would show it dangling).
//! - A front page that fits: the root README has at most
//!   [`README_MAX_LINES`] lines.
//! - What a published crate shows (its README, its documentation) links
//!   only to places that exist once it is published: see `published`.

use std::collections::HashSet;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use crate::published::{self, Page};

/// The most lines the root README may have: one screen that sells the
/// project and sends the reader on to the guide.
pub const README_MAX_LINES: usize = 200;

/// One thing wrong, where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file, relative to the repository root.
    pub path: PathBuf,
    /// The line, from 1 (0 for the whole file).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// The internal reference in `line`, if there is one, as it is written.
pub fn internal_reference(line: &str) -> Option<&'static str> {
    let lower = line.to_ascii_lowercase();
    let spec = line.match_indices("SPEC").any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + 4..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphabetic()) && !after.is_some_and(|c| c.is_ascii_alphabetic())
    });
    if spec {
        Some("SPEC")
    } else if lower.contains("seed 00") || lower.contains("seeds 00") {
        Some("seed 00")
    } else if lower.contains("the issue") {
        Some("the issue")
    } else {
        None
    }
}

/// The link targets of one line of Markdown outside code: `[text](target)`,
/// `![alt](target)`, `[id]: target`, and `href="…"` / `src="…"`.
pub fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut targets = Vec::new();
    let mut rest = line.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let end = closing_paren(after);
        let target = after[..end].trim();
        // `[text](<path with spaces> "title")`: the path alone.
        let target = target.split_whitespace().next().unwrap_or("");
        let target = target.trim_start_matches('<').trim_end_matches('>');
        if !target.is_empty() {
            targets.push(target.to_owned());
        }
        rest = &after[end.min(after.len())..];
    }
    let trimmed = line.trim_start();
    if let Some(definition) = trimmed.strip_prefix('[') {
        if let Some((_, target)) = definition.split_once("]: ") {
            if let Some(target) = target.split_whitespace().next() {
                targets.push(target.trim_start_matches('<').trim_end_matches('>').to_owned());
            }
        }
    }
    for attribute in ["href=\"", "src=\""] {
        for (at, _) in line.match_indices(attribute) {
            let value = &line[at + attribute.len()..];
            if let Some(end) = value.find('"') {
                targets.push(value[..end].to_owned());
            }
        }
    }
    targets
}

/// The byte index of the `)` that closes a link target opened just before
/// `text`, allowing balanced parentheses inside; the end if there is none.
fn closing_paren(text: &str) -> usize {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return i,
            ')' => depth -= 1,
            _ => {}
        }
    }
    text.len()
}

/// `line` with its `code spans` blanked, so that `[a](b)` written as code is
/// not read as a link.
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else {
            out.push(if in_code { ' ' } else { c });
        }
    }
    out
}

/// Whether a link target leaves the repository's files: a URL or an email.
fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces
/// as hyphens.
pub fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The lines of a Markdown file outside fenced code blocks, numbered from 1.
pub fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<&str> = None;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) => lines.push((i + 1, line)),
            _ => {}
        }
    }
    lines
}

/// The anchors of a Markdown file's headings, numbered as GitHub numbers
/// repeated ones (`name`, `name-1`, ...).
pub fn anchors(text: &str) -> HashSet<String> {
    let mut anchors = HashSet::new();
    for (_, line) in prose_lines(text) {
        let Some(heading) = line.strip_prefix('#') else { continue };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading);
        let mut anchor = base.clone();
        let mut n = 0;
        while anchors.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        anchors.insert(anchor);
    }
    anchors
}

/// `path` with `.` and `..` resolved without touching the file system;
/// `None` if it climbs above its start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(part) => out.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// The problems with one link of the Markdown file `file` (relative to
/// `root`): a target outside the repository, missing, or a fragment with
/// no heading.
fn check_link(root: &Path, file: &Path, text: &str, target: &str) -> Option<String> {
    if is_external(target) {
        return None;
    }
    let (path, fragment) = match target.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (target, None),
    };
    let path = path.split('?').next().unwrap_or("");
    let (resolved, content) = if path.is_empty() {
        (file.to_path_buf(), Some(text.to_owned()))
    } else {
        let joined = file.parent().unwrap_or(Path::new("")).join(path);
        let Some(resolved) = normalize(&joined) else {
            return Some(format!("link {target} leaves the repository"));
        };
        let full = root.join(&resolved);
        if !full.exists() {
            return Some(format!("link {target} points to {}, which does not exist", resolved.display()));
        }
        let content = full.is_file().then(|| std::fs::read_to_string(&full).ok()).flatten();
        (resolved, content)
    };
    let fragment = fragment.filter(|f| !f.is_empty())?;
    let is_markdown = resolved.extension().is_some_and(|ext| ext == "md");
    match content {
        Some(content) if is_markdown && !anchors(&content).contains(fragment) => {
            Some(format!("link {target}: {} has no heading #{fragment}", resolved.display()))
        }
        _ => None,
    }
}

/// Checks one file's text; `path` is relative to `root`, and `crate_page`
/// is what the file is to a published crate, with that crate's directory.
pub fn check_text(root: &Path, path: &Path, text: &str, crate_page: Option<(&Path, Page)>) -> Vec<Problem> {
    let problem = |line: usize, message: String| Problem { path: path.to_path_buf(), line, message };
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(word) = internal_reference(line) {
            problems.push(problem(i + 1, format!("internal reference \"{word}\": name a public source")));
        }
    }
    match path.extension().and_then(|ext| ext.to_str()) {
        Some("md") => {
            let rustdoc = matches!(crate_page, Some((_, Page::Rustdoc)));
            for (number, line) in prose_lines(text) {
                for target in link_targets(line) {
                    // An intra-doc link is rustdoc's to check.
                    if rustdoc && published::is_intra_doc(&target) {
                        continue;
                    }
                    if let Some(message) = check_link(root, path, text, &target) {
                        problems.push(problem(number, message));
                    }
                }
            }
            if path == Path::new("README.md") {
                let lines = text.lines().count();
                if lines > README_MAX_LINES {
                    problems.push(problem(
                        0,
                        format!("{lines} lines: the front page must fit in {README_MAX_LINES}"),
                    ));
                }
            }
        }
        // A published crate's sources are checked by the stricter rule below.
        Some("rs") if crate_page.is_none() => {
            for (i, line) in text.lines().enumerate() {
                let doc = line.trim_start();
                if !(doc.starts_with("///") || doc.starts_with("//!")) {
                    continue;
                }
                for target in link_targets(doc) {
                    let file = target.split('#').next().unwrap_or("");
                    if !is_external(&target) && file.ends_with(".md") {
                        problems.push(problem(
                            i + 1,
                            format!("doc link {target} is relative: docs.rs shows it dangling; link the guide by URL"),
                        ));
                    }
                }
            }
        }
        _ => {}
    }
    if let Some((dir, kind)) = crate_page {
        problems.extend(published::check_page(root, dir, path, kind, text));
        if kind == Page::Readme {
            let manifest = std::fs::read_to_string(root.join(dir).join("Cargo.toml")).unwrap_or_default();
            if let Some(message) = published::feature_table_problem(text, &manifest) {
                problems.push(problem(0, message));
            }
        }
    }
    problems
}

/// This file: it must spell the words it looks for.
const THIS_FILE: &str = "crates/xtask/src/docs.rs";

/// Whether the check reads `path` (relative to the root): Markdown and SVG
/// anywhere, and the sources, examples and manifests of the crates (this
/// check's own source aside).
pub fn scanned(path: &Path) -> bool {
    if path == Path::new(THIS_FILE) {
        return false;
    }
    let ext = path.extension().and_then(|ext| ext.to_str()).unwrap_or("");
    if matches!(ext, "md" | "svg") {
        return true;
    }
    let mut parts = path.components().map(|c| c.as_os_str().to_string_lossy());
    match (parts.next().as_deref(), parts.next(), parts.next().as_deref()) {
        (Some("crates"), Some(_), Some("src" | "examples")) => ext == "rs",
        (Some("crates"), Some(_), Some("Cargo.toml")) => true,
        (Some("Cargo.toml"), None, None) => true,
        _ => false,
    }
}

/// Every file under `dir` (relative to `root`), skipping build output and
/// hidden directories.
pub fn files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(root.join(dir)).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        let path = dir.join(&*name);
        let kind = entry.file_type().map_err(|e| format!("{}: {e}", path.display()))?;
        if kind.is_dir() {
            files(root, &path, out)?;
        } else if kind.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// Every problem in the repository at `root`, with how many files were read.
pub fn problems(root: &Path) -> Result<(Vec<Problem>, usize), String> {
    let mut all = Vec::new();
    files(root, Path::new(""), &mut all)?;
    all.retain(|path| scanned(path));
    all.sort();
    if !all.iter().any(|path| path == Path::new("README.md")) {
        return Err(format!("{} has no README.md: is it the repository root?", root.display()));
    }
    let crates = published::published_crates(root)?;
    let mut problems = Vec::new();
    for path in &all {
        let text =
            std::fs::read_to_string(root.join(path)).map_err(|e| format!("{}: {e}", path.display()))?;
        let crate_page =
            crates.iter().find_map(|(_, dir)| published::page(dir, path).map(|kind| (dir.as_path(), kind)));
        problems.extend(check_text(root, path, &text, crate_page));
    }
    problems.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    Ok((problems, all.len()))
}

/// Runs the check on the repository around the current directory.
pub fn check() -> Result<String, String> {
    let root = std::env::current_dir().map_err(|e| e.to_string())?;
    let (problems, files) = problems(&root)?;
    if problems.is_empty() {
        Ok(format!("docs: {files} files read, no internal reference, no dangling link\n"))
    } else {
        Err(problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_references_are_found_and_public_words_are_not() {
        assert_eq!(internal_reference("as in SPEC section 2"), Some("SPEC"));
        assert_eq!(internal_reference("see SPEC.md"), Some("SPEC"));
        assert_eq!(internal_reference("the table of seed 002"), Some("seed 00"));
        assert_eq!(internal_reference("Seeds 000 and 001"), Some("seed 00"));
        assert_eq!(internal_reference("as The issue asks"), Some("the issue"));
        for fine in ["seed 2015", "SPECIFIC", "a spec of dust", "an issue", "RFC 9110 section 9.2.2"] {
            assert_eq!(internal_reference(fine), None, "{fine}");
        }
    }

    #[test]
    fn links_are_read_outside_code() {
        assert_eq!(link_targets("see [a](b.md) and ![c](d/e.svg \"title\")"), ["b.md", "d/e.svg"]);
        assert_eq!(link_targets("`[a](not-a-link)` but [x](f(1).md)"), ["f(1).md"]);
        assert_eq!(link_targets("[id]: ../other.md#part"), ["../other.md#part"]);
        assert_eq!(link_targets("<img src=\"chart.svg\"> <a href=\"#top\">"), ["#top", "chart.svg"]);
    }

    #[test]
    fn anchors_are_github_s() {
        let text = "# The cap\n## `stagger simulate`\n```\n# not a heading\n```\n## The cap\n#hashtag\n";
        let anchors = anchors(text);
        let mut anchors: Vec<&str> = anchors.iter().map(String::as_str).collect();
        anchors.sort_unstable();
        assert_eq!(anchors, ["stagger-simulate", "the-cap", "the-cap-1"]);
        assert_eq!(slug("Budgets: token bucket, ratio & throttle"), "budgets-token-bucket-ratio--throttle");
    }

    /// A throwaway repository: files written under a fresh directory.
    fn repository(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn messages(files: &[(&str, &str)]) -> Vec<String> {
        let repo = repository(files);
        problems(repo.path()).unwrap().0.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn every_rule_fails_where_it_should() {
        let long_readme = "line\n".repeat(README_MAX_LINES + 1);
        let found = messages(&[
            ("README.md", &long_readme),
            ("docs/guide.md", "# Guide\n[ok](../README.md) [gone](missing.md) [up](../../x.md)\n[bad](#nowhere) [good](#guide) [far](../README.md#nope)\n"),
            ("docs/chart.svg", "<text>SPEC</text>"),
            ("crates/lib/Cargo.toml", "[package]\nname = \"lib\"\ndescription = \"what the issue wants\"\n"),
            ("crates/lib/README.md", "# Lib\n[own](#lib) [api](https://docs.rs/lib) [home](https://crates.io/crates/lib)\n[guide](../../docs/guide.md) [repo](https://example.invalid/lib)\n"),
            ("crates/lib/src/lib.rs", "//! See [guide](../../docs/guide.md) and [the chapter](guide::cap).\n/// As seed 004 says.\nfn f() {}\n#![doc = concat!(env!(\"CARGO_PKG_REPOSITORY\"), \"/docs\")]\n"),
            ("crates/lib/src/guide/cap.md", "# Cap\n[words](crate::guide::terms#the-words) ![chart](charts/cap.svg) [self](cap.md)\n[tests](https://docs.rs/crate/lib/latest/source/tests/t.rs) [gone](https://docs.rs/crate/lib/latest/source/tests/gone.rs)\n"),
            ("crates/lib/src/guide/charts/cap.svg", "<svg/>"),
            ("crates/lib/tests/t.rs", "// SPEC section 1: tests may say so\n"),
            ("crates/tool/Cargo.toml", "[package]\nname = \"tool\"\npublish = false\n"),
            ("crates/tool/README.md", "# Tool\n[guide](../../docs/guide.md)\n"),
        ]);
        let expected = [
            "README.md:0: 201 lines: the front page must fit in 200",
            "crates/lib/Cargo.toml:3: internal reference \"the issue\": name a public source",
            "crates/lib/README.md:3: link ../../docs/guide.md is relative: crates.io resolves it against the repository; link docs.rs or crates.io",
            "crates/lib/README.md:3: link https://example.invalid/lib points outside the crate's pages, docs.rs and crates.io: it may not exist once published",
            "crates/lib/src/guide/cap.md:2: link cap.md is a file docs.rs does not host: use an intra-doc link, docs.rs or crates.io",
            "crates/lib/src/guide/cap.md:3: link https://docs.rs/crate/lib/latest/source/tests/gone.rs: the lib package has no tests/gone.rs",
            "crates/lib/src/lib.rs:1: link ../../docs/guide.md is a file docs.rs does not host: use an intra-doc link, docs.rs or crates.io",
            "crates/lib/src/lib.rs:2: internal reference \"seed 00\": name a public source",
            "crates/lib/src/lib.rs:4: CARGO_PKG_REPOSITORY: the repository is no page of the published crate",
            "docs/chart.svg:1: internal reference \"SPEC\": name a public source",
            "docs/guide.md:2: link missing.md points to docs/missing.md, which does not exist",
            "docs/guide.md:2: link ../../x.md leaves the repository",
            "docs/guide.md:3: link #nowhere: docs/guide.md has no heading #nowhere",
            "docs/guide.md:3: link ../README.md#nope: README.md has no heading #nope",
        ];
        assert_eq!(found, expected);
        assert!(messages(&[("README.md", "# Fine\n[self](#fine)\n")]).is_empty());
    }

    #[test]
    fn this_repository_passes() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let (problems, files) = problems(&root).unwrap();
        let report: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert!(report.is_empty(), "{}", report.join("\n"));
        assert!(files > 100, "only {files} files read: is the walk right?");
    }
}
