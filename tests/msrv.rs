//! The declared `rust-version` (Cargo.toml's `[workspace.package]`) is the oldest
//! toolchain the locked dependency trees accept.
//!
//! Cargo does not check this by itself: a dependency (often a dev-dependency, or one
//! compiled only for another target) can need a newer toolchain than the one the
//! README promises, and a user on that toolchain gets a build error from somebody
//! else's crate. This test reads every locked package of both workspaces (the root
//! one and `fuzz/`, which has its own `Cargo.lock`) through `cargo metadata --locked`
//! (which downloads, as `cargo test` itself does, the packages of other targets a
//! fresh machine has not fetched yet), for all targets and with dev-dependencies, and fails when any of them
//! declares a newer `rust-version` than ours. Our own code's use of newer standard
//! library APIs is checked by clippy's `incompatible_msrv` lint, which reads the same
//! field. `.cargo/config.toml` sets `incompatible-rust-versions = "fallback"`, so
//! `cargo update` keeps the locks within it.
//!
//! To print the figure: `cargo test --test msrv -- --nocapture`.

use std::cmp::Ordering;
use std::fmt;
use std::path::Path;
use std::process::Command;

/// A `rust-version` value: `major.minor` or `major.minor.patch` (a missing patch is 0,
/// as Cargo reads it).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct RustVersion {
    major: u64,
    minor: u64,
    patch: u64,
}

impl RustVersion {
    fn parse(text: &str) -> Option<Self> {
        let mut parts = text.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = match parts.next() {
            Some(patch) => patch.parse().ok()?,
            None => 0,
        };
        if parts.next().is_some() {
            return None;
        }
        Some(Self {
            major,
            minor,
            patch,
        })
    }
}

impl fmt::Display for RustVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)?;
        if self.patch != 0 {
            write!(f, ".{}", self.patch)?;
        }
        Ok(())
    }
}

/// One locked package that states a `rust-version`.
#[derive(Debug)]
struct Requirement {
    package: String,
    rust_version: RustVersion,
}

/// The packages of one workspace's lock, split into its own members and the rest.
struct Locked {
    members: Vec<Requirement>,
    dependencies: Vec<Requirement>,
}

/// Every package `cargo metadata` resolves from `manifest`'s lock file, without
/// changing the lock (`--locked`).
fn locked_packages(manifest: &Path) -> Locked {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--locked", "--format-version", "1"])
        .arg("--manifest-path")
        .arg(manifest)
        .output()
        .unwrap_or_else(|error| panic!("cannot run cargo metadata: {error}"));
    assert!(
        output.status.success(),
        "cargo metadata --locked --manifest-path {} failed (a lock file out of step \
         with its manifests, or crates.io unreachable):\n{}",
        manifest.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let members: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .expect("workspace_members is an array")
        .iter()
        .filter_map(serde_json::Value::as_str)
        .collect();
    let mut locked = Locked {
        members: Vec::new(),
        dependencies: Vec::new(),
    };
    for package in metadata["packages"]
        .as_array()
        .expect("packages is an array")
    {
        let name = format!(
            "{} {}",
            package["name"].as_str().unwrap_or("?"),
            package["version"].as_str().unwrap_or("?")
        );
        let Some(text) = package["rust_version"].as_str() else {
            continue;
        };
        let rust_version = RustVersion::parse(text)
            .unwrap_or_else(|| panic!("{name}: unreadable rust-version {text:?}"));
        let requirement = Requirement {
            package: name,
            rust_version,
        };
        let id = package["id"].as_str().unwrap_or("");
        if members.contains(&id) {
            locked.members.push(requirement);
        } else {
            locked.dependencies.push(requirement);
        }
    }
    locked
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The `rust-version` the root workspace declares (every member inherits it).
fn declared() -> RustVersion {
    let members = locked_packages(&root().join("Cargo.toml")).members;
    let first = members
        .first()
        .expect("the root workspace's members state a rust-version");
    for member in &members {
        assert_eq!(
            member.rust_version, first.rust_version,
            "{} and {} state different rust-versions; they inherit one from \
             [workspace.package]",
            member.package, first.package
        );
    }
    first.rust_version
}

#[test]
fn declared_rust_version_covers_every_locked_package() {
    let declared = declared();
    let mut needed: Vec<Requirement> = Vec::new();
    for manifest in [root().join("Cargo.toml"), root().join("fuzz/Cargo.toml")] {
        needed.extend(locked_packages(&manifest).dependencies);
    }
    let newest = needed
        .iter()
        .max_by_key(|requirement| requirement.rust_version)
        .expect("some locked dependency states a rust-version");
    let too_new: Vec<String> = needed
        .iter()
        .filter(|requirement| requirement.rust_version.cmp(&declared) == Ordering::Greater)
        .map(|requirement| format!("{} needs {}", requirement.package, requirement.rust_version))
        .collect();
    assert!(
        too_new.is_empty(),
        "Cargo.toml declares rust-version = \"{declared}\" but the locks need newer:\n  {}\n\
         Raise rust-version to {} (and the README's toolchain line), or lower these with \
         `cargo update -p NAME` (the resolver falls back to releases that fit).",
        too_new.join("\n  "),
        newest.rust_version
    );
    #[allow(clippy::disallowed_macros)] // the figure for the test log, not product output
    {
        println!(
            "declared rust-version {declared}; the locks need {} ({})",
            newest.rust_version, newest.package
        );
    }
}

#[test]
fn rust_version_parsing_orders_like_cargo() {
    let parse = |text| RustVersion::parse(text).expect("valid");
    assert_eq!(parse("1.85"), parse("1.85.0"));
    assert!(parse("1.87.0") > parse("1.85"));
    assert!(parse("1.100") > parse("1.99.9"));
    assert!(RustVersion::parse("1").is_none());
    assert!(RustVersion::parse("1.85.0.1").is_none());
    assert!(RustVersion::parse("1.x").is_none());
}

#[test]
fn resolver_stays_within_rust_version() {
    let config = std::fs::read_to_string(root().join(".cargo/config.toml"))
        .expect(".cargo/config.toml exists");
    let config: toml::Table = config.parse().expect(".cargo/config.toml is TOML");
    assert_eq!(
        config
            .get("resolver")
            .and_then(|resolver| resolver.get("incompatible-rust-versions"))
            .and_then(toml::Value::as_str),
        Some("fallback"),
        ".cargo/config.toml must keep `cargo update` within rust-version"
    );
}
