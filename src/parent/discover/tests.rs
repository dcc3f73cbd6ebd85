use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::*;

fn input(platform: Platform, home: &Path, cwd: &Path, env: Environment) -> DiscoveryInput {
    DiscoveryInput {
        platform,
        home: home.to_path_buf(),
        cwd: cwd.to_path_buf(),
        env,
        system_root: PathBuf::from("/sysroot"),
    }
}

fn env_of(pairs: &[(&str, &str)], platform: Platform) -> Environment {
    let pairs: Vec<(String, OsString)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    Environment::read(platform, |name| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    })
}

const HOME: &str = "/nonexistent-home";
const CWD: &str = "/nonexistent-cwd";

/// `(label, path, format, layer)` of every candidate outside the project walk-up.
fn user_and_system(
    platform: Platform,
    env: Environment,
) -> Vec<(String, String, FileFormat, Layer)> {
    let home = Path::new(HOME);
    discover(&input(platform, home, Path::new(CWD), env))
        .candidates
        .iter()
        .filter(|c| c.project_root.is_none())
        .map(|c| {
            (
                c.label.to_string(),
                display_path(&c.path, home),
                c.format,
                c.layer,
            )
        })
        .collect()
}

fn paths(platform: Platform, env: Environment) -> Vec<String> {
    user_and_system(platform, env)
        .into_iter()
        .map(|(_, p, _, _)| p)
        .collect()
}

#[test]
fn linux_locations_in_order() {
    assert_eq!(
        paths(Platform::Linux, Environment::default()),
        [
            "~/.claude.json",
            "~/.cursor/mcp.json",
            "~/.codeium/windsurf/mcp_config.json",
            "~/.codex/config.toml",
            "~/.config/Claude/claude_desktop_config.json",
            "~/.config/Code/User/mcp.json",
            "~/.claude/settings.json",
            "~/.config/Code/User/settings.json",
            "~/.config/Code - Insiders/User/mcp.json",
            "~/.config/Code - Insiders/User/settings.json",
            "~/.gemini/settings.json",
            "~/.config/zed/settings.json",
            "~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            "~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
            "~/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            "~/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
            "~/.copilot/mcp-config.json",
            "~/.aws/amazonq/mcp.json",
            "~/.kiro/settings/mcp.json",
            "~/.config/opencode/opencode.json",
            "~/.config/opencode/opencode.jsonc",
            "~/.continue/config.yaml",
            "/sysroot/etc/claude-code/managed-mcp.json",
            "/sysroot/etc/claude-code/managed-settings.json",
            "/sysroot/etc/codex/config.toml",
            "/sysroot/etc/gemini-cli/settings.json",
        ]
    );
}

#[test]
fn darwin_locations_in_order() {
    assert_eq!(
        paths(Platform::Darwin, Environment::default()),
        [
            "~/.claude.json",
            "~/.cursor/mcp.json",
            "~/.codeium/windsurf/mcp_config.json",
            "~/.codex/config.toml",
            "~/Library/Application Support/Claude/claude_desktop_config.json",
            "~/Library/Application Support/Code/User/mcp.json",
            "~/.claude/settings.json",
            "~/Library/Application Support/Code/User/settings.json",
            "~/Library/Application Support/Code - Insiders/User/mcp.json",
            "~/Library/Application Support/Code - Insiders/User/settings.json",
            "~/.gemini/settings.json",
            "~/.config/zed/settings.json",
            "~/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            "~/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
            "~/Library/Application Support/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            "~/Library/Application Support/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
            "~/.copilot/mcp-config.json",
            "~/.aws/amazonq/mcp.json",
            "~/.kiro/settings/mcp.json",
            "~/.config/opencode/opencode.json",
            "~/.config/opencode/opencode.jsonc",
            "~/.continue/config.yaml",
            "/sysroot/Library/Application Support/ClaudeCode/managed-mcp.json",
            "/sysroot/Library/Application Support/ClaudeCode/managed-settings.json",
            "/sysroot/etc/codex/config.toml",
            "/sysroot/Library/Application Support/GeminiCli/settings.json",
        ]
    );
}

#[test]
fn windows_locations_follow_the_injected_variables_and_are_never_guessed() {
    let without = paths(Platform::Win32, Environment::default());
    assert_eq!(
        without,
        [
            "~/.claude.json",
            "~/.cursor/mcp.json",
            "~/.codeium/windsurf/mcp_config.json",
            "~/.codex/config.toml",
            "~/.claude/settings.json",
            "~/.gemini/settings.json",
            "~/.copilot/mcp-config.json",
            "~/.aws/amazonq/mcp.json",
            "~/.kiro/settings/mcp.json",
            "~/.config/opencode/opencode.json",
            "~/.config/opencode/opencode.jsonc",
            "~/.continue/config.yaml",
            "/sysroot/Program Files/ClaudeCode/managed-mcp.json",
            "/sysroot/Program Files/ClaudeCode/managed-settings.json",
            "/sysroot/ProgramData/gemini-cli/settings.json",
        ]
    );
    // Empty is unset.
    let empty = env_of(&[("APPDATA", ""), ("ProgramData", "")], Platform::Win32);
    assert_eq!(paths(Platform::Win32, empty), without);
    let with = paths(
        Platform::Win32,
        env_of(
            &[("APPDATA", "/r/AppData/Roaming"), ("ProgramData", "/r/PD")],
            Platform::Win32,
        ),
    );
    for expected in [
        "/r/AppData/Roaming/Claude/claude_desktop_config.json",
        "/r/AppData/Roaming/Code/User/mcp.json",
        "/r/AppData/Roaming/Code/User/settings.json",
        "/r/AppData/Roaming/Code - Insiders/User/mcp.json",
        "/r/AppData/Roaming/Zed/settings.json",
        "/r/AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        "/r/AppData/Roaming/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
        "/r/PD/OpenAI/Codex/config.toml",
    ] {
        assert!(with.iter().any(|p| p == expected), "{expected} in {with:?}");
    }
    // Ten under APPDATA, one under ProgramData.
    assert_eq!(with.len(), without.len() + 11);
}

#[test]
fn formats_and_layers_per_location() {
    let all = user_and_system(Platform::Linux, Environment::default());
    let of = |suffix: &str| {
        all.iter()
            .find(|(_, p, _, _)| p.ends_with(suffix))
            .map(|(l, _, f, layer)| (l.as_str(), *f, *layer))
            .unwrap_or_else(|| panic!("{suffix} not found"))
    };
    use FileFormat as F;
    assert_eq!(
        of("managed-mcp.json"),
        ("Claude Code (managed)", F::Json, Layer::Managed)
    );
    assert_eq!(
        of("managed-settings.json"),
        ("Claude Code (managed)", F::ClaudeSettings, Layer::Managed)
    );
    assert_eq!(
        of("/etc/codex/config.toml"),
        ("Codex (system)", F::CodexToml, Layer::System)
    );
    assert_eq!(
        of("gemini-cli/settings.json"),
        ("Gemini CLI (system)", F::GeminiSettings, Layer::System)
    );
    assert_eq!(
        of(".claude/settings.json"),
        ("Claude Code", F::ClaudeSettings, Layer::User)
    );
    assert_eq!(
        of("Code/User/settings.json"),
        ("VS Code", F::VsCodeSettings, Layer::User)
    );
    assert_eq!(
        of("Code - Insiders/User/mcp.json"),
        ("VS Code Insiders", F::Jsonc, Layer::User)
    );
    assert_eq!(
        of("zed/settings.json"),
        ("Zed", F::ZedSettings, Layer::User)
    );
    assert_eq!(of("opencode.jsonc"), ("OpenCode", F::OpenCode, Layer::User));
    assert_eq!(
        of("config.yaml"),
        ("Continue", F::ContinueYaml, Layer::User)
    );
    assert_eq!(
        of("mcp-config.json"),
        ("GitHub Copilot CLI", F::Json, Layer::User)
    );
    assert_eq!(
        of("Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json").0,
        "Cline (Cursor)"
    );
}

#[test]
fn relocation_variables_move_their_clients_files_and_are_reported() {
    let env = env_of(
        &[
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("CODEX_HOME", "rel/codex"),
            ("COPILOT_HOME", "/p"),
            ("XDG_CONFIG_HOME", "/x"),
            ("GEMINI_CLI_SYSTEM_SETTINGS_PATH", "/g/s.json"),
        ],
        Platform::Linux,
    );
    let found = discover(&input(
        Platform::Linux,
        Path::new(HOME),
        Path::new(CWD),
        env,
    ));
    let paths: Vec<String> = found
        .candidates
        .iter()
        .filter(|c| c.project_root.is_none())
        .map(|c| display_path(&c.path, Path::new(HOME)))
        .collect();
    for expected in [
        "/c/.claude.json",
        "/c/settings.json",
        "/nonexistent-cwd/rel/codex/config.toml",
        "/p/mcp-config.json",
        "/x/Code/User/mcp.json",
        "/x/zed/settings.json",
        "/x/opencode/opencode.json",
        "/x/Claude/claude_desktop_config.json",
        "/g/s.json",
    ] {
        assert!(
            paths.iter().any(|p| p == expected),
            "{expected} in {paths:?}"
        );
    }
    for gone in [
        "~/.claude.json",
        "~/.claude/settings.json",
        "~/.codex/config.toml",
        "~/.config/Code/User/mcp.json",
    ] {
        assert!(
            !paths.iter().any(|p| p == gone),
            "{gone} still in {paths:?}"
        );
    }
    // The base of a relocated file is the variable's directory.
    let claude = found
        .candidates
        .iter()
        .find(|c| c.path == Path::new("/c/settings.json"))
        .expect("settings");
    assert_eq!(claude.base, Path::new("/c"));
    let vars: Vec<&str> = found.relocations.iter().map(|(v, _)| *v).collect();
    assert_eq!(
        vars,
        [
            "XDG_CONFIG_HOME",
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "COPILOT_HOME",
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
        ]
    );
    // The same count as without the variables: each moved a path, none added one.
    assert_eq!(
        found.candidates.len(),
        candidates(&input(
            Platform::Linux,
            Path::new(HOME),
            Path::new(CWD),
            Environment::default()
        ))
        .len()
    );
}

#[test]
fn xdg_config_home_follows_the_xdg_rule_and_moves_only_its_clients_paths() {
    for value in ["", "relative/dir", "./x"] {
        let env = env_of(&[("XDG_CONFIG_HOME", value)], Platform::Linux);
        assert_eq!(env.xdg_config_home, None, "{value:?}");
    }
    // Elsewhere it moves OpenCode's directory alone.
    let env = env_of(&[("XDG_CONFIG_HOME", "/x")], Platform::Darwin);
    let moved: Vec<String> = paths(Platform::Darwin, env)
        .into_iter()
        .filter(|p| p.starts_with("/x/"))
        .collect();
    assert_eq!(
        moved,
        ["/x/opencode/opencode.json", "/x/opencode/opencode.jsonc"]
    );
    // Set to the default: nothing moved, nothing reported (the same for Codex's and
    // Copilot's homes; Claude Code's moves `.claude.json` even then).
    let env = env_of(
        &[
            ("XDG_CONFIG_HOME", "/nonexistent-home/.config"),
            ("CODEX_HOME", "/nonexistent-home/.codex"),
            ("COPILOT_HOME", "/nonexistent-home/.copilot"),
            ("CLAUDE_CONFIG_DIR", "/nonexistent-home/.claude"),
        ],
        Platform::Linux,
    );
    let found = discover(&input(
        Platform::Linux,
        Path::new(HOME),
        Path::new(CWD),
        env,
    ));
    let vars: Vec<&str> = found.relocations.iter().map(|(v, _)| *v).collect();
    assert_eq!(vars, ["CLAUDE_CONFIG_DIR"]);
}

#[test]
fn empty_relocation_variables_keep_the_defaults() {
    let env = env_of(
        &[
            ("CLAUDE_CONFIG_DIR", ""),
            ("CODEX_HOME", ""),
            ("COPILOT_HOME", ""),
        ],
        Platform::Linux,
    );
    assert_eq!(env, Environment::default());
    let variables_only_for_windows =
        env_of(&[("APPDATA", "/a"), ("ProgramData", "/p")], Platform::Linux);
    assert_eq!(variables_only_for_windows, Environment::default());
}

#[test]
fn project_files_of_every_walk_up_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let repo = home.join("repo");
    let sub = repo.join("sub");
    std::fs::create_dir_all(&sub).expect("mkdir");
    std::fs::create_dir(repo.join(".git")).expect("mkdir .git");
    let found = candidates(&input(Platform::Linux, &home, &sub, Environment::default()));
    let project: Vec<(String, &str, Layer)> = found
        .iter()
        .filter(|c| c.project_root.is_some())
        .map(|c| (display_path(&c.path, &home), c.label, c.layer))
        .collect();
    let rels = [
        ".mcp.json",
        ".cursor/mcp.json",
        ".vscode/mcp.json",
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".vscode/settings.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        ".zed/settings.json",
        ".roo/mcp.json",
        ".amazonq/mcp.json",
        ".kiro/settings/mcp.json",
        "opencode.json",
        "opencode.jsonc",
    ];
    let expected: Vec<String> = ["~/repo/sub", "~/repo"]
        .iter()
        .flat_map(|d| rels.iter().map(move |r| format!("{d}/{r}")))
        .collect();
    let got: Vec<&String> = project.iter().map(|(p, _, _)| p).collect();
    assert_eq!(got, expected.iter().collect::<Vec<_>>());
    let local = project
        .iter()
        .find(|(p, _, _)| p.ends_with("settings.local.json"))
        .expect("local");
    assert_eq!((local.1, local.2), ("Claude Code (local)", Layer::Local));
}

#[test]
fn listings_are_sorted_bounded_and_never_enter_a_symlink() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let work = tmp.path().join("work");
    let servers = work.join(".continue/mcpServers");
    std::fs::create_dir_all(&servers).expect("mkdir");
    for i in (0..MAX_LISTED + 3).rev() {
        std::fs::write(servers.join(format!("s{i:04}.yaml")), "").expect("write");
    }
    std::fs::write(servers.join("notes.txt"), "").expect("write");
    std::fs::write(servers.join("a.json"), "").expect("write");
    let found = discover(&input(
        Platform::Linux,
        &home,
        &work,
        Environment::default(),
    ));
    let listed: Vec<&Candidate> = found
        .candidates
        .iter()
        .filter(|c| c.path.starts_with(&servers))
        .collect();
    assert_eq!(listed.len(), MAX_LISTED);
    assert_eq!(listed[0].path, servers.join("a.json"));
    assert_eq!(listed[0].format, FileFormat::Json);
    assert_eq!(listed[1].path, servers.join("s0000.yaml"));
    assert_eq!(listed[1].format, FileFormat::ContinueYaml);
    assert_eq!(listed[1].base, work);
    assert!(listed.iter().all(|c| c.client == Client::Continue));
    match found.problems.as_slice() {
        [ListingProblem::TooMany {
            extra,
            named,
            at_least: false,
            ..
        }] => {
            // 260 matching names, 256 listed: the last 4 by name are left out.
            assert_eq!(*extra, 4);
            assert_eq!(named[0], OsString::from("s0255.yaml"));
        }
        other => panic!("{other:?}"),
    }

    // A symlinked profile directory and a symlinked profiles directory.
    let profiles = home.join(".config/Code/User/profiles");
    std::fs::create_dir_all(profiles.join("p1")).expect("mkdir");
    std::os::unix::fs::symlink(tmp.path(), profiles.join("p0")).expect("symlink");
    let found = discover(&input(
        Platform::Linux,
        &home,
        &work,
        Environment::default(),
    ));
    let profile_files: Vec<String> = found
        .candidates
        .iter()
        .filter(|c| c.path.starts_with(&profiles))
        .map(|c| display_path(&c.path, &home))
        .collect();
    assert_eq!(
        profile_files,
        [
            "~/.config/Code/User/profiles/p1/mcp.json",
            "~/.config/Code/User/profiles/p1/settings.json",
            "~/.config/Code/User/profiles/p1/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            "~/.config/Code/User/profiles/p1/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"
        ]
    );
    assert!(found.problems.contains(&ListingProblem::SymlinkedEntry {
        path: profiles.join("p0")
    }));

    let insiders = home.join(".config/Code - Insiders/User");
    std::fs::create_dir_all(&insiders).expect("mkdir");
    std::os::unix::fs::symlink(&profiles, insiders.join("profiles")).expect("symlink");
    let found = discover(&input(
        Platform::Linux,
        &home,
        &work,
        Environment::default(),
    ));
    assert!(found.problems.contains(&ListingProblem::Symlink {
        dir: insiders.join("profiles"),
        at: insiders.join("profiles"),
    }));
    assert!(!found
        .candidates
        .iter()
        .any(|c| c.path.starts_with(insiders.join("profiles"))));
}

#[test]
fn desktop_extensions_are_listed_under_claudes_data_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let appdata = tmp.path().join("AppData/Roaming");
    let extensions = appdata.join("Claude/Claude Extensions");
    for id in ["ant.dir.b", "ant.dir.a"] {
        std::fs::create_dir_all(extensions.join(id)).expect("mkdir");
    }
    std::fs::write(extensions.join("stray-file.json"), "").expect("write");
    let env = Environment {
        appdata: Some(appdata.clone().into()),
        ..Environment::default()
    };
    let found = candidates(&input(
        Platform::Win32,
        &tmp.path().join("home"),
        &tmp.path().join("w"),
        env,
    ));
    let manifests: Vec<&Candidate> = found
        .iter()
        .filter(|c| c.format == FileFormat::DesktopExtension)
        .collect();
    assert_eq!(manifests.len(), 2);
    assert_eq!(
        manifests[0].path,
        extensions.join("ant.dir.a/manifest.json")
    );
    assert_eq!(manifests[0].label, "Claude Desktop (extension)");
    assert_eq!(manifests[0].readers, &[Reader::ClaudeDesktopExtension]);
    assert_eq!(manifests[0].base, appdata);
}

#[test]
fn explicit_names_get_their_clients_reading() {
    use FileFormat as F;
    let cases: &[(&str, F, &[Reader])] = &[
        ("x/codex.toml", F::CodexToml, &[Reader::Codex]),
        ("x/config.TOML", F::CodexToml, &[Reader::Codex]),
        ("/h/.claude.json", F::ClaudeJson, &[Reader::ClaudeCode]),
        ("r/.mcp.json", F::McpJson, kinds::DOT_MCP_JSON),
        ("r/.vscode/mcp.json", F::Jsonc, &[Reader::VsCode]),
        ("/h/.config/Code/User/mcp.json", F::Jsonc, &[Reader::VsCode]),
        (
            "/h/.config/Code - Insiders/User/mcp.json",
            F::Jsonc,
            &[Reader::VsCode],
        ),
        (
            "/h/.config/Code/User/profiles/abc/mcp.json",
            F::Jsonc,
            &[Reader::VsCode],
        ),
        ("/Code/x/mcp.json", F::Json, crate::reading::ANY_JSON),
        ("mcp.json", F::Json, crate::reading::ANY_JSON),
        (
            "r/.vscode/settings.json",
            F::VsCodeSettings,
            &[Reader::VsCode],
        ),
        (
            "/h/.config/Code/User/settings.json",
            F::VsCodeSettings,
            &[Reader::VsCode],
        ),
        (
            "/h/AppData/Code - Insiders/User/settings.json",
            F::VsCodeSettings,
            &[Reader::VsCode],
        ),
        (
            "/h/Code/User/profiles/abc/settings.json",
            F::VsCodeSettings,
            &[Reader::VsCode],
        ),
        (
            "r/.claude/settings.json",
            F::ClaudeSettings,
            &[Reader::ClaudeCode],
        ),
        (
            "r/.claude/settings.local.json",
            F::ClaudeSettings,
            &[Reader::ClaudeCode],
        ),
        (
            "/etc/claude-code/managed-settings.json",
            F::ClaudeSettings,
            &[Reader::ClaudeCode],
        ),
        (
            "/etc/claude-code/managed-mcp.json",
            F::Json,
            &[Reader::ClaudeCode],
        ),
        (
            "/etc/claude-code/managed-settings.d/10-mcp.json",
            F::ClaudeSettings,
            &[Reader::ClaudeCode],
        ),
        ("r/.zed/settings.json", F::ZedSettings, &[Reader::Zed]),
        (
            "/h/.config/zed/settings.json",
            F::ZedSettings,
            &[Reader::Zed],
        ),
        (
            "/h/AppData/Roaming/Zed/settings.json",
            F::ZedSettings,
            &[Reader::Zed],
        ),
        (
            "r/.gemini/settings.json",
            F::GeminiSettings,
            &[Reader::GeminiCli],
        ),
        (
            "/etc/gemini-cli/settings.json",
            F::GeminiSettings,
            &[Reader::GeminiCli],
        ),
        ("r/opencode.json", F::OpenCode, &[Reader::OpenCode]),
        (
            "/h/.config/opencode/opencode.jsonc",
            F::OpenCode,
            &[Reader::OpenCode],
        ),
        (
            "x/Claude Extensions/e/manifest.json",
            F::DesktopExtension,
            &[Reader::ClaudeDesktopExtension],
        ),
        (
            "/h/.continue/config.yaml",
            F::ContinueYaml,
            &[Reader::Continue],
        ),
        (
            "r/.continue/mcpServers/s.yml",
            F::ContinueYaml,
            &[Reader::Continue],
        ),
        (
            "r/.continue/mcpServers/s.json",
            F::Json,
            &[Reader::Continue],
        ),
        (
            "g/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            F::Json,
            &[Reader::Cline],
        ),
        (
            "g/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
            F::Json,
            &[Reader::RooCode],
        ),
        ("r/.roo/mcp.json", F::Json, &[Reader::RooCode]),
        (
            "/h/.copilot/mcp-config.json",
            F::Json,
            &[Reader::CopilotCli],
        ),
        ("/h/.aws/amazonq/mcp.json", F::Json, &[Reader::AmazonQ]),
        ("r/.amazonq/mcp.json", F::Json, &[Reader::AmazonQ]),
        ("/h/.kiro/settings/mcp.json", F::Json, &[Reader::Kiro]),
        ("r/.cursor/mcp.json", F::Json, kinds::CURSOR),
        (
            "/h/.codeium/windsurf/mcp_config.json",
            F::Json,
            kinds::WINDSURF,
        ),
        (
            "/h/Claude/claude_desktop_config.json",
            F::Json,
            kinds::CLAUDE_DESKTOP,
        ),
        // Near misses: a settings.json that names no client, a `settings/mcp.json`
        // outside `.kiro`.
        ("r/settings.json", F::Json, crate::reading::ANY_JSON),
        ("r/x/settings/mcp.json", F::Json, crate::reading::ANY_JSON),
    ];
    for (path, format, readers) in cases {
        assert_eq!(
            explicit_reading(Path::new(path)),
            (*format, *readers),
            "{path}"
        );
    }
}

#[test]
fn display_path_uses_tilde_under_home_only() {
    let home = Path::new("/h");
    assert_eq!(
        display_path(Path::new("/h/.cursor/mcp.json"), home),
        "~/.cursor/mcp.json"
    );
    assert_eq!(display_path(Path::new("/x/mcp.json"), home), "/x/mcp.json");
}

#[test]
fn managed_drop_ins_are_the_visible_json_files_in_name_order() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("root");
    let drop_in = root.join("etc/claude-code/managed-settings.d");
    std::fs::create_dir_all(&drop_in).expect("mkdir");
    for name in [
        "20-b.json",
        "10-a.json",
        ".hidden.json",
        "notes.txt",
        "x.JSON",
    ] {
        std::fs::write(drop_in.join(name), "{}").expect("write");
    }
    let mut input = input(
        Platform::Linux,
        &tmp.path().join("home"),
        &tmp.path().join("w"),
        Environment::default(),
    );
    input.system_root = root.clone();
    let found: Vec<Candidate> = candidates(&input)
        .into_iter()
        .filter(|c| c.path.starts_with(&drop_in))
        .collect();
    let names: Vec<&OsStr> = found.iter().filter_map(|c| c.path.file_name()).collect();
    assert_eq!(names, ["10-a.json", "20-b.json"]);
    assert!(found
        .iter()
        .all(|c| c.layer == Layer::Managed && c.format == FileFormat::ClaudeSettings));
    // The base is the system directory above the client's own, so a symlinked
    // `/etc/claude-code` is refused.
    assert_eq!(found[0].base, root.join("etc"));
}

#[test]
fn a_listed_directory_swapped_for_a_symlink_after_the_listing_is_never_followed() {
    use crate::parent::open::{open_discovered, Discovered};
    // (the listed entry's directory, the file below it), each below T.
    let cases = [
        ("home/.config/Code/User/profiles/p", "mcp.json"),
        (
            "home/.config/Code/User/profiles/p",
            "globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        ),
        ("home/.config/Claude/Claude Extensions/e", "manifest.json"),
        ("home/.continue/mcpServers", "s.json"),
        ("work/.continue/mcpServers", "s.yaml"),
        ("system/etc/claude-code/managed-settings.d", "a.json"),
    ];
    for (dir, file) in cases {
        let t = tempfile::tempdir().expect("tempdir");
        let root = t.path();
        let target = root.join(dir).join(file);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::write(&target, "{}").expect("write");
        let mut input = input(
            Platform::Linux,
            &root.join("home"),
            &root.join("work"),
            Environment::default(),
        );
        std::fs::create_dir_all(&input.cwd).expect("mkdir cwd");
        input.system_root = root.join("system");
        let found = discover(&input);
        let candidate = found
            .candidates
            .iter()
            .find(|c| c.path == target)
            .unwrap_or_else(|| panic!("{dir}/{file} not listed"));
        // The race: after the listing, the directory becomes a link to a copy.
        let elsewhere = root.join("elsewhere");
        std::fs::rename(root.join(dir), &elsewhere).expect("move");
        std::os::unix::fs::symlink(&elsewhere, root.join(dir)).expect("symlink");
        assert!(
            matches!(
                open_discovered(&candidate.base, &candidate.path, 1 << 20),
                Discovered::Symlink { .. }
            ),
            "{dir}/{file}"
        );
        // And the race-free open alone refuses it too (the probe bypassed).
        let rel = candidate
            .path
            .strip_prefix(&candidate.base)
            .expect("below base");
        let base = nix::fcntl::open(
            &candidate.base,
            nix::fcntl::OFlag::O_PATH | nix::fcntl::OFlag::O_DIRECTORY,
            nix::sys::stat::Mode::empty(),
        )
        .expect("open base");
        assert!(
            crate::parent::open::open_beneath(&base, rel).is_err(),
            "{dir}/{file}"
        );
    }
}

/// The pre-commit hook (`.pre-commit-hooks.yaml`) runs on the project file of
/// every client discovery knows, wherever it sits in the repository, and
/// `--config` reads each the way discovery would.
#[test]
fn pre_commit_hook_files_cover_every_project_file() {
    let hooks = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/.pre-commit-hooks.yaml"
    ));
    let docs = yaml_rust2::YamlLoader::load_from_str(hooks).unwrap_or_else(|e| panic!("{e}"));
    let hook = &docs[0][0];
    assert_eq!(hook["id"].as_str(), Some("mcp-warden-doctor"));
    let files = hook["files"]
        .as_str()
        .unwrap_or_else(|| panic!("no files:"));
    let pattern = regex::Regex::new(files).unwrap_or_else(|e| panic!("{e}"));
    for (rel, kind) in kinds::PROJECT_FILES {
        let names: Vec<String> = if rel == kinds::CONTINUE_SERVERS_DIR {
            let ext: &[&str] = if kind.format == FileFormat::ContinueYaml {
                &["yaml", "yml"]
            } else {
                &["json"]
            };
            ext.iter().map(|e| format!("{rel}/servers.{e}")).collect()
        } else {
            vec![rel.to_string()]
        };
        for name in names {
            for path in [name.clone(), format!("packages/app/{name}")] {
                assert!(pattern.is_match(&path), "the hook's files: misses {path}");
            }
            assert_eq!(
                explicit_reading(Path::new(&name)),
                (kind.format, kind.readers),
                "{name}"
            );
        }
    }
    for other in [
        "README.md",
        "mcp.json",
        "src/settings.json",
        "x.mcp.json",
        ".mcp.json.bak",
    ] {
        assert!(
            !pattern.is_match(other),
            "the hook's files: matches {other}"
        );
    }
}
