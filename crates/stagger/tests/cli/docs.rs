//! What `stagger` shows a user stands on its own: the charts the guide
//! commits are what the commands it states print, byte for byte, and no
//! help text, manual page or output refers to a document the user does not
//! have.

use std::path::{Path, PathBuf};

use super::{stagger, stdout_of};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The directories of the guide's chapters: the library's (a module of its
/// documentation) and the repository's `docs/` (the command line, the
/// simulator); `None` outside the repository, as in the published package,
/// which ships neither.
fn chapter_dirs() -> Option<[PathBuf; 2]> {
    let dirs = [root().join("crates/staggered/src/guide"), root().join("docs")];
    dirs.iter().all(|dir| dir.is_dir()).then_some(dirs)
}

/// The internal reference in `text`, if any: the words the project's own
/// check (`cargo run -p xtask -- docs`) refuses in the sources and the guide.
fn internal_reference(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    let spec = text.match_indices("SPEC").any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + 4..].chars().next();
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

/// Every `stagger ... --plot PATH.svg` command in a shell block of the
/// guide whose chart is committed (its path, from the repository's root,
/// starts with `docs/` or `crates/`), as (chapter, arguments, chart).
fn chart_commands(dirs: &[PathBuf]) -> Vec<(String, Vec<String>, PathBuf)> {
    let mut commands = Vec::new();
    let mut chapters: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).expect("the guide"))
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    chapters.sort();
    for chapter in chapters {
        let text = std::fs::read_to_string(&chapter).expect("a chapter");
        let mut in_shell = false;
        for line in text.lines() {
            match line.trim() {
                "```sh" => in_shell = true,
                "```" => in_shell = false,
                command
                    if in_shell
                        && command.starts_with("stagger ")
                        && (command.contains("--plot docs/") || command.contains("--plot crates/")) =>
                {
                    let words: Vec<String> = command.split_whitespace().skip(1).map(str::to_owned).collect();
                    let at = words.iter().position(|w| w == "--plot").expect("--plot") + 1;
                    let chart = root().join(&words[at]);
                    let name = chapter.file_name().unwrap().to_string_lossy().into_owned();
                    commands.push((name, words, chart));
                }
                _ => {}
            }
        }
    }
    commands
}

#[test]
fn every_chart_of_the_guide_is_what_its_command_draws() {
    let Some(dirs) = chapter_dirs() else {
        eprintln!("skipped: the guide's chapters are in the repository, not in this package");
        return;
    };
    let commands = chart_commands(&dirs);
    assert!(commands.len() >= 13, "the guide's chart commands were not found: {commands:?}");
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (chapter, mut words, chart) in commands {
        let command = format!("stagger {}", words.join(" "));
        let at = words.iter().position(|w| w == "--plot").unwrap() + 1;
        let drawn = dir.path().join(chart.file_name().unwrap());
        words[at] = drawn.to_string_lossy().into_owned();
        let args: Vec<&str> = words.iter().map(String::as_str).collect();
        let output = stdout_of(&args);
        assert_eq!(internal_reference(&output), None, "{chapter}: {command}");
        let committed =
            std::fs::read(&chart).unwrap_or_else(|e| panic!("{chapter}: {}: {e}", chart.display()));
        let drawn = std::fs::read(&drawn).expect("the chart was drawn");
        assert!(
            committed == drawn,
            "{chapter}: the committed chart is not what `{command}` draws: run it again"
        );
    }
}

#[test]
fn help_manual_pages_and_outputs_refer_to_nothing_internal() {
    let mut texts = vec![("stagger --help".to_owned(), stdout_of(&["--help"]))];
    for command in ["schedule", "run", "simulate", "completions", "man"] {
        if command == "run" && !cfg!(unix) {
            continue;
        }
        texts.push((format!("stagger {command} --help"), stdout_of(&[command, "--help"])));
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    stdout_of(&["man", "--out-dir", dir.path().to_str().unwrap()]);
    for page in std::fs::read_dir(dir.path()).unwrap() {
        let page = page.unwrap().path();
        texts.push((page.display().to_string(), std::fs::read_to_string(&page).unwrap()));
    }
    for preset in ["interactive", "standard", "batch", "aws", "grpc", "google"] {
        for format in ["table", "json"] {
            let args = ["schedule", "--preset", preset, "--samples", "3", "--seed", "1", "--format", format];
            texts.push((args.join(" "), stdout_of(&args)));
        }
    }
    let args = ["simulate", "--clients", "10", "--runs", "2", "--strategies", "none,full,smooth"];
    texts.push((args.join(" "), stdout_of(&args)));
    let args = ["simulate", "--scenario", "overload", "--duration", "20s", "--format", "markdown"];
    texts.push((args.join(" "), stdout_of(&args)));
    let bad = stagger(&["schedule", "--multiplier", "0.5"]);
    texts.push(("a usage error".to_owned(), String::from_utf8_lossy(&bad.stderr).into_owned()));
    for (what, text) in &texts {
        assert_eq!(internal_reference(text), None, "{what}");
    }
    assert_eq!(internal_reference("as in SPEC section 8"), Some("SPEC"), "the check itself works");
}
