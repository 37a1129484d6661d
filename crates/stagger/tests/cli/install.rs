//! `stagger completions` and `stagger man`: the shell can load the scripts,
//! and the pages are well-formed roff that `man` can render.

use std::io::Write;
use std::process::{Command, Stdio};

use super::{stagger, stdout_of};

const COMMANDS: [&str; 5] = ["schedule", "run", "simulate", "completions", "man"];

/// Runs `program args` with `input` on its standard input; `None` if the
/// program is not installed.
fn pipe(program: &str, args: &[&str], input: &str) -> Option<std::process::Output> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("input written");
    Some(child.wait_with_output().expect("waited"))
}

#[test]
fn every_shell_gets_a_script_that_knows_every_command() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout_of(&["completions", shell]);
        for command in COMMANDS {
            if command == "run" && !cfg!(unix) {
                continue;
            }
            assert!(script.contains(command), "{shell} script lacks {command}");
        }
        assert!(script.contains("attempt-timeout"), "{shell} script lacks the options");
    }
    let bad = stagger(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("tcsh"));
}

#[test]
fn bash_sources_the_script_and_registers_the_completion() {
    let script = stdout_of(&["completions", "bash"]);
    // The script is read from stdin and sourced; `complete -p` fails unless
    // it registered a completion for `stagger`.
    let Some(out) = pipe("bash", &["-c", "source /dev/stdin && complete -p stagger"], &script) else {
        eprintln!("skipped: bash is not installed");
        return;
    };
    let registered = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "bash could not source it: {}", String::from_utf8_lossy(&out.stderr));
    assert!(registered.contains("stagger"), "{registered}");
}

/// The requests (`.XX`) a page may use: those of the man macro package and
/// the few roff conditionals clap_mangen writes for the apostrophe.
const REQUESTS: [&str; 14] =
    ["TH", "SH", "SS", "TP", "PP", "IP", "RS", "RE", "B", "I", "br", "ie", "el", "sp"];

/// Checks that `page` is a man page: a title, the standard sections, only
/// known requests, and no text line that roff would read as a request.
fn assert_man_page(page: &str, title: &str) {
    let mut sections = Vec::new();
    let mut titled = false;
    for line in page.lines() {
        if let Some(request) = line.strip_prefix('.') {
            let name = request.split_whitespace().next().unwrap_or("");
            assert!(REQUESTS.contains(&name), "unknown request .{name} in {title}: {line}");
            match name {
                "TH" => {
                    assert!(!titled, "two titles in {title}");
                    assert!(request.split_whitespace().nth(1) == Some(title), "{line}");
                    titled = true;
                }
                "SH" => sections.push(request[2..].trim().to_owned()),
                _ => {}
            }
        } else {
            assert!(!line.starts_with('\''), "a text line roff would read as a request in {title}: {line}");
        }
    }
    assert!(titled, "{title} has no .TH");
    for wanted in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS"] {
        assert!(sections.iter().any(|s| s == wanted), "{title} lacks {wanted}: {sections:?}");
    }
}

#[test]
fn man_pages_are_well_formed_for_stagger_and_each_command() {
    let page = stdout_of(&["man"]);
    assert_man_page(&page, "stagger");
    for command in COMMANDS {
        if command == "run" && !cfg!(unix) {
            continue;
        }
        assert!(page.contains(&format!("stagger\\-{command}(1)")), "the stagger page lists {command}");
        assert_man_page(&stdout_of(&["man", command]), &format!("stagger-{command}"));
    }
    let run = stdout_of(&["man", "run"]);
    assert!(run.contains("attempt\\-timeout"), "the run page documents its options");

    let bad = stagger(&["man", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no command 'nope'"));
}

#[test]
fn man_renders_the_page() {
    let page = stdout_of(&["man", "simulate"]);
    let Some(out) = pipe("man", &["-l", "-"], &page) else {
        eprintln!("skipped: man is not installed");
        return;
    };
    assert!(out.status.success(), "man failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("SYNOPSIS") && text.contains("--scenario"), "{text}");
}

#[test]
fn man_writes_every_page_into_a_directory() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().to_str().expect("utf-8 path");
    stdout_of(&["man", "--out-dir", path]);
    let mut written: Vec<String> = std::fs::read_dir(dir.path())
        .expect("listed")
        .map(|e| e.expect("entry").file_name().into_string().unwrap())
        .collect();
    written.sort();
    let mut expected: Vec<String> = COMMANDS
        .iter()
        .filter(|c| **c != "run" || cfg!(unix))
        .map(|c| format!("stagger-{c}.1"))
        .chain(["stagger.1".to_owned()])
        .collect();
    expected.sort();
    assert_eq!(written, expected);
}

#[test]
fn man_out_dir_is_created_if_it_does_not_exist() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let man1 = dir.path().join("share/man/man1");
    stdout_of(&["man", "--out-dir", man1.to_str().expect("utf-8 path")]);
    assert!(man1.join("stagger.1").is_file() && man1.join("stagger-man.1").is_file());
    // A directory that cannot be made is an error that names it.
    let file = dir.path().join("file");
    std::fs::write(&file, "").expect("written");
    let under_a_file = file.join("man1");
    let out = stagger(&["man", "--out-dir", under_a_file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(under_a_file.to_str().unwrap()));
}

#[test]
fn the_readme_says_which_commands_take_format() {
    let readme = include_str!("../../README.md");
    let at = readme.find("`--format table|csv|json|markdown`").expect("the README names --format");
    // The sentence's subject: from the paragraph's start to `--format`.
    let subject = &readme[readme[..at].rfind("\n\n").map_or(0, |start| start + 2)..at];
    for command in COMMANDS.into_iter().filter(|c| *c != "run" || cfg!(unix)) {
        let takes = stdout_of(&[command, "--help"]).contains("--format <");
        let named = subject.contains(&format!("`stagger {command}`"));
        assert_eq!(named, takes, "{command}: {subject}");
    }
}
