//! The `rust-version` check: a crate's claim must cover what its locked
//! dependencies need.
//!
//! For each publishable workspace crate, `cargo tree` lists the packages it
//! builds (normal and build dependencies, for this host) with its default
//! features and with all features; `cargo metadata --all-features` gives
//! each locked package's own `rust-version` (without `--all-features` it
//! leaves out the packages only optional features reach). The claim in `Cargo.toml` must be at least
//! the highest of the default-feature set, and the crate's README must state
//! the highest of the all-features set as `<version> with all features`.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// A Rust version as `major.minor.patch` (a missing patch is 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(u32, u32, u32);

impl Version {
    /// Parses `1.85` or `1.85.0`.
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.trim().split('.').map(|part| part.parse::<u32>().ok());
        let major = parts.next()??;
        let minor = parts.next().unwrap_or(Some(0))?;
        let patch = parts.next().unwrap_or(Some(0))?;
        parts.next().is_none().then_some(Version(major, minor, patch))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Version(major, minor, 0) => write!(f, "{major}.{minor}"),
            Version(major, minor, patch) => write!(f, "{major}.{minor}.{patch}"),
        }
    }
}

/// The package among `packages` (name, version) whose `rust-version` is the
/// highest, with that version; `None` if none declares one.
pub fn highest<'a>(
    packages: impl IntoIterator<Item = &'a (String, String)>,
    rust_versions: &HashMap<(String, String), Version>,
) -> Option<(Version, &'a (String, String))> {
    packages
        .into_iter()
        .filter_map(|package| rust_versions.get(package).map(|version| (*version, package)))
        .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(a.1)))
}

/// Compares one crate's claim with what its dependencies need: `Err` names
/// the dependency that needs more.
pub fn judge(
    crate_name: &str,
    claim: Version,
    need: Option<(Version, &(String, String))>,
) -> Result<(), String> {
    match need {
        Some((version, (name, package_version))) if version > claim => Err(format!(
            "{crate_name} claims rust-version {claim}, but its dependency {name} v{package_version} \
             needs {version} with {crate_name}'s default features: raise the claim or pin an older {name}"
        )),
        _ => Ok(()),
    }
}

struct Member {
    name: String,
    claim: Version,
    dir: PathBuf,
}

fn cargo(args: &[&str], dir: &Path) -> Result<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(&cargo)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("{cargo} {args:?}: {e}"))?;
    if !output.status.success() {
        return Err(format!("{cargo} {args:?} failed: {}", String::from_utf8_lossy(&output.stderr)));
    }
    String::from_utf8(output.stdout).map_err(|e| format!("{cargo} {args:?}: {e}"))
}

/// The (name, version) pairs `cargo tree` lists for `package`, itself excluded.
fn built_by(package: &str, all_features: bool, root: &Path) -> Result<Vec<(String, String)>, String> {
    let mut args =
        vec!["tree", "--locked", "-p", package, "-e", "normal,build", "--prefix", "none", "--format", "{p}"];
    if all_features {
        args.push("--all-features");
    }
    let text = cargo(&args, root)?;
    let mut seen: Vec<(String, String)> = text
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let name = words.next()?;
            let version = words.next()?.strip_prefix('v')?;
            Some((name.to_owned(), version.to_owned()))
        })
        .collect();
    seen.sort();
    seen.dedup();
    Ok(seen)
}

/// Runs the check on the workspace around the current directory.
pub fn check() -> Result<String, String> {
    let root = std::env::current_dir().map_err(|e| e.to_string())?;
    let metadata: Value = serde_json::from_str(&cargo(
        &["metadata", "--format-version", "1", "--locked", "--all-features"],
        &root,
    )?)
    .map_err(|e| format!("cargo metadata: {e}"))?;
    let packages = metadata["packages"].as_array().ok_or("cargo metadata: no packages")?;
    let members: Vec<&str> =
        metadata["workspace_members"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let mut rust_versions = HashMap::new();
    let mut publishable = Vec::new();
    for package in packages {
        let name = package["name"].as_str().unwrap_or_default().to_owned();
        let version = package["version"].as_str().unwrap_or_default().to_owned();
        let rust_version = package["rust_version"].as_str().and_then(Version::parse);
        if let Some(rust_version) = rust_version {
            rust_versions.insert((name.clone(), version), rust_version);
        }
        let is_member = package["id"].as_str().is_some_and(|id| members.contains(&id));
        let published = !matches!(&package["publish"], Value::Array(registries) if registries.is_empty());
        if is_member && published {
            let claim =
                rust_version.ok_or_else(|| format!("{name} is publishable but claims no rust-version"))?;
            let manifest = PathBuf::from(package["manifest_path"].as_str().unwrap_or_default());
            let dir = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
            publishable.push(Member { name, claim, dir });
        }
    }
    publishable.sort_by(|a, b| a.name.cmp(&b.name));

    let mut report = String::new();
    let mut errors = Vec::new();
    for member in &publishable {
        let default = built_by(&member.name, false, &root)?;
        let all = built_by(&member.name, true, &root)?;
        let need_default = highest(&default, &rust_versions);
        let need_all = highest(&all, &rust_versions).map_or(member.claim, |(v, _)| v.max(member.claim));
        if let Err(e) = judge(&member.name, member.claim, need_default) {
            errors.push(e);
        }
        let stated = format!("{need_all} with all features");
        let readme = std::fs::read_to_string(member.dir.join("README.md")).unwrap_or_default();
        if !readme.contains(&stated) {
            errors.push(format!(
                "{}'s README.md must state the rust-version its dependencies need with all features: \"{stated}\"",
                member.name
            ));
        }
        let _ = writeln!(
            report,
            "{:<14} claims {:<6} default features need {:<6} ({}), all features need {}",
            member.name,
            member.claim.to_string(),
            need_default.map_or("-".to_owned(), |(v, _)| v.to_string()),
            need_default.map_or("no dependency declares one".to_owned(), |(_, (n, v))| format!("{n} v{v}")),
            need_all,
        );
    }
    if errors.is_empty() {
        Ok(report)
    } else {
        Err(format!("{report}{}", errors.join("\n")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_order() {
        assert_eq!(Version::parse("1.85"), Some(Version(1, 85, 0)));
        assert_eq!(Version::parse("1.85.1"), Some(Version(1, 85, 1)));
        assert_eq!(Version::parse("1.x"), None);
        assert_eq!(Version::parse("1.2.3.4"), None);
        assert!(Version::parse("1.88").unwrap() > Version::parse("1.85.9").unwrap());
        assert_eq!(Version(1, 88, 0).to_string(), "1.88");
    }

    #[test]
    fn a_claim_below_a_dependency_fails_and_names_it() {
        let deps = vec![("tokio".to_owned(), "1.54.1".to_owned()), ("libm".to_owned(), "0.2.16".to_owned())];
        let versions =
            HashMap::from([(deps[0].clone(), Version(1, 85, 0)), (deps[1].clone(), Version(1, 63, 0))]);
        let need = highest(&deps, &versions);
        assert_eq!(need.map(|(v, p)| (v, p.0.as_str())), Some((Version(1, 85, 0), "tokio")));
        assert!(judge("staggered", Version(1, 85, 0), need).is_ok());
        let err = judge("staggered", Version(1, 80, 0), need).unwrap_err();
        assert!(
            err.contains("claims rust-version 1.80") && err.contains("tokio v1.54.1 needs 1.85"),
            "{err}"
        );
        assert!(judge("x", Version(1, 0, 0), highest(&[], &versions)).is_ok());
    }
}
