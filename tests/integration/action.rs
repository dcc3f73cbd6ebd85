//! The GitHub Action (`action.yml` + `scripts/action/run.sh`) run locally: a fake
//! release in a directory served over `file://` holds the built binary under its
//! release name and a checksum, right or wrong. The steps of `action.yml` are run
//! the way the runner would (inputs substituted into `env:` only), except the
//! SARIF upload, which needs GitHub.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use yaml_rust2::{Yaml, YamlLoader};

use crate::util::{bin, Run};

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn asset() -> String {
    format!("mcp-warden-{VERSION}-x86_64-unknown-linux-musl")
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sha256_hex(path: &Path) -> String {
    use sha2::Digest as _;
    let bytes = std::fs::read(path).expect("read binary");
    sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What the release directory's checksum file says.
enum Checksum {
    Right,
    Wrong,
    Missing,
    /// Right digest, another asset's name.
    OtherName,
    /// The right line, then a second one.
    TwoLines,
}

/// A temporary release directory, runner temp and workspace.
struct Release {
    dir: tempfile::TempDir,
}

impl Release {
    /// The release holds `binary` under the release name.
    fn new(binary: &Path, checksum: Checksum) -> Release {
        let dir = tempfile::Builder::new()
            .prefix("warden-action")
            .tempdir()
            .expect("tempdir");
        for sub in ["release", "runner-temp", "workspace", "home"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        }
        let target = dir.path().join("release").join(asset());
        std::fs::copy(binary, &target).expect("copy binary");
        let digest = sha256_hex(&target);
        let line = match checksum {
            Checksum::Right | Checksum::TwoLines => format!("{digest}  {}\n", asset()),
            Checksum::Wrong => format!("{}  {}\n", "0".repeat(64), asset()),
            Checksum::OtherName => format!("{digest}  mcp-warden-other\n"),
            Checksum::Missing => String::new(),
        };
        let line = match checksum {
            Checksum::TwoLines => format!("{line}{}  evil\n", "1".repeat(64)),
            _ => line,
        };
        if !matches!(checksum, Checksum::Missing) {
            std::fs::write(
                dir.path()
                    .join("release")
                    .join(format!("{}.sha256", asset())),
                line,
            )
            .expect("write checksum");
        }
        Release { dir }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    fn base_url(&self) -> String {
        format!("file://{}", self.path("release").display())
    }

    fn sarif(&self) -> PathBuf {
        self.path("runner-temp/out.sarif")
    }

    /// A command with only the runner's variables set, in the workspace.
    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.path("workspace"))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path("home"))
            .env("RUNNER_TEMP", self.path("runner-temp"))
            .stdin(Stdio::null());
        cmd
    }

    /// `scripts/action/run.sh` with `inputs` (`INPUT_*` and `MCP_WARDEN_*` names).
    fn run_script(&self, inputs: &[(&str, &str)]) -> Run {
        let mut cmd = self.command("bash");
        cmd.arg(repo_root().join("scripts/action/run.sh"))
            .env("MCP_WARDEN_VERSION", VERSION)
            .env("MCP_WARDEN_RELEASE_BASE_URL", self.base_url())
            .envs(inputs.iter().copied());
        Run::from(cmd.output().expect("run the action script"))
    }

    fn workspace_entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path("workspace"))
            .expect("read workspace")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

/// A stand-in for the release binary: records its arguments (NUL-separated) in
/// `argv` beside the workspace and exits 0.
fn recorder(dir: &Path) -> PathBuf {
    let path = dir.join("recorder.sh");
    std::fs::write(
        &path,
        "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$RUNNER_TEMP/../argv\"\n",
    )
    .expect("write recorder");
    path
}

fn recorded_argv(release: &Release) -> Option<Vec<String>> {
    let bytes = std::fs::read(release.dir.path().join("argv")).ok()?;
    let text = String::from_utf8(bytes).expect("utf-8 argv");
    Some(
        text.strip_suffix('\0')
            .unwrap_or(&text)
            .split('\0')
            .map(String::from)
            .collect(),
    )
}

const UNPINNED_NPX: &str = r#"{"mcpServers": {"x": {"command": "npx", "args": ["-y", "evil"]}}}"#;

#[test]
fn right_checksum_runs_doctor_writes_sarif_and_propagates_its_exit_code() {
    let release = Release::new(&bin(), Checksum::Right);
    std::fs::write(release.path("workspace/.mcp.json"), UNPINNED_NPX).expect("write config");
    let sarif = release.sarif();
    let sarif_str = sarif.to_str().expect("utf-8");

    // A high finding fails at --fail-on high ...
    let run = release.run_script(&[
        ("INPUT_CONFIG", ".mcp.json"),
        ("INPUT_FAIL_ON", "high"),
        ("INPUT_SARIF", sarif_str),
    ]);
    run.expect_code(1);
    assert!(run.stdout.contains("verified: sha256"), "{}", run.all());
    assert!(run.stdout.contains("WRD-SUP-NPX-UNPINNED"), "{}", run.all());
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&sarif).expect("SARIF written")).expect("JSON");
    assert_eq!(report["version"], "2.1.0");
    assert!(report.to_string().contains("WRD-SUP-NPX-UNPINNED"));
    std::fs::remove_file(&sarif).expect("rm sarif");

    // ... and passes at --fail-on critical, still writing the report.
    let run = release.run_script(&[
        ("INPUT_CONFIG", ".mcp.json"),
        ("INPUT_FAIL_ON", "critical"),
        ("INPUT_SARIF", sarif_str),
    ]);
    run.expect_code(0);
    assert!(sarif.is_file());

    // A usage error is doctor's exit 2.
    let run = release.run_script(&[
        ("INPUT_CONFIG", ".mcp.json"),
        ("INPUT_ARGS", "--no-such-option"),
        ("INPUT_SARIF", sarif_str),
    ]);
    run.expect_code(2);
    assert!(run.stderr.contains("--no-such-option"), "{}", run.all());

    // An unreadable config is exit 2 too (fail closed).
    let run = release.run_script(&[("INPUT_CONFIG", "missing.json"), ("INPUT_SARIF", sarif_str)]);
    run.expect_code(2);
    assert_eq!(release.workspace_entries(), [".mcp.json"]);
}

#[test]
fn a_bad_or_missing_checksum_fails_before_anything_runs() {
    // Control: with the right checksum the stand-in does run.
    let scratch = tempfile::tempdir().expect("tempdir");
    let stand_in = recorder(scratch.path());
    let control = Release::new(&stand_in, Checksum::Right);
    control.run_script(&[]).expect_code(0);
    assert!(recorded_argv(&control).is_some(), "the control did not run");

    for (checksum, says) in [
        (Checksum::Wrong, "SHA-256 mismatch"),
        (Checksum::Missing, "cannot download the checksum"),
        (Checksum::OtherName, "is for 'mcp-warden-other'"),
        (Checksum::TwoLines, "more than one line"),
    ] {
        let release = Release::new(&stand_in, checksum);
        let run = release.run_script(&[("INPUT_CONFIG", ".mcp.json")]);
        run.expect_code(2);
        assert!(run.stderr.starts_with("error: "), "{}", run.all());
        assert!(run.stderr.contains(says), "{says}: {}", run.all());
        assert_eq!(recorded_argv(&release), None, "{says}: the binary ran");
    }

    // A digest given as the sha256 input must match as well.
    let release = Release::new(&stand_in, Checksum::Right);
    let run = release.run_script(&[("MCP_WARDEN_SHA256", &"a".repeat(64))]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("the sha256 input says"),
        "{}",
        run.all()
    );
    assert_eq!(recorded_argv(&release), None);
    let digest = sha256_hex(&release.path("release").join(asset()));
    release
        .run_script(&[("MCP_WARDEN_SHA256", &digest.to_uppercase())])
        .expect_code(0);
}

#[test]
fn a_download_never_falls_back_to_cleartext() {
    let release = Release::new(&bin(), Checksum::Right);
    let run = release.run_script(&[("MCP_WARDEN_RELEASE_BASE_URL", "http://127.0.0.1:9/x")]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("cannot download the checksum"),
        "{}",
        run.all()
    );
}

#[test]
fn hostile_input_values_are_single_arguments_and_never_run() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let release = Release::new(&recorder(scratch.path()), Checksum::Right);
    let hostile = [
        "; touch pwned-semicolon",
        "$(touch pwned-subst)",
        "`touch pwned-backtick`",
        "a b  *",
        "-x' \"; touch pwned-quote",
        "--pin",
    ];
    let config = hostile.join("\n");
    let args = format!("{}\r\n--json", hostile.join("\n"));
    let sarif = release.path("runner-temp/$(touch pwned-sarif).sarif");
    let run = release.run_script(&[
        ("INPUT_CONFIG", &config),
        ("INPUT_FAIL_ON", "high; touch pwned-fail-on"),
        ("INPUT_ARGS", &args),
        ("INPUT_SARIF", sarif.to_str().expect("utf-8")),
    ]);
    run.expect_code(0);
    let mut expected = vec!["doctor".to_string(), format!("--sarif={}", sarif.display())];
    expected.extend(hostile.iter().map(|h| format!("--config={h}")));
    expected.push("--no-discover".into());
    expected.push("--fail-on=high; touch pwned-fail-on".into());
    expected.extend(hostile.iter().map(|h| h.to_string()));
    expected.push("--json".into());
    assert_eq!(recorded_argv(&release), Some(expected));
    assert_eq!(release.workspace_entries(), Vec::<String>::new());
    assert!(!release.dir.path().join("pwned-sarif").exists());

    // A line break in the SARIF path would forge a GITHUB_OUTPUT line.
    let run = release.run_script(&[("INPUT_SARIF", "a.sarif\nexit-code=0")]);
    run.expect_code(2);
    assert!(run.stderr.contains("line break"), "{}", run.all());
}

/// The value of a step's `env:` entry as the runner would set it: `${{ inputs.X }}`
/// from `inputs` (else the declared default), `${{ steps.ID.outputs.K }}` from
/// `outputs`, `${{ github.… }}` empty.
fn evaluate(
    value: &str,
    declared: &Yaml,
    inputs: &BTreeMap<&str, &str>,
    outputs: &BTreeMap<String, String>,
) -> String {
    let Some(expr) = value
        .strip_prefix("${{ ")
        .and_then(|v| v.strip_suffix(" }}"))
    else {
        assert!(!value.contains("${{"), "an expression inside {value:?}");
        return value.to_string();
    };
    if let Some(name) = expr.strip_prefix("inputs.") {
        assert!(!declared[name].is_badvalue(), "undeclared input {name}");
        return inputs
            .get(name)
            .map(|v| v.to_string())
            .unwrap_or_else(|| declared[name]["default"].as_str().unwrap_or("").to_string());
    }
    if let Some(rest) = expr.strip_prefix("steps.doctor.outputs.") {
        return outputs.get(rest).cloned().unwrap_or_default();
    }
    assert!(expr.starts_with("github."), "unexpected expression {expr}");
    String::new()
}

/// Run the `run:` steps of `action.yml` in order (the upload step is recorded,
/// not run); the job's exit code and whether the upload would have run.
fn run_action(release: &Release, inputs: &[(&str, &str)]) -> (i32, bool, Run) {
    let text = std::fs::read_to_string(repo_root().join("action.yml")).expect("action.yml");
    let action = &YamlLoader::load_from_str(&text).expect("yaml")[0];
    let declared = &action["inputs"];
    let inputs: BTreeMap<&str, &str> = inputs.iter().copied().collect();
    let mut outputs = BTreeMap::new();
    let github_output = release.path("runner-temp/github-output");
    let mut uploaded = false;
    let mut last = None;
    for step in action["runs"]["steps"].as_vec().expect("steps") {
        if let Some(uses) = step["uses"].as_str() {
            assert!(uses.starts_with("github/codeql-action/upload-sarif@"));
            let condition = step["if"].as_str().expect("an if on the upload");
            assert!(condition.starts_with("always()"), "{condition}");
            let wanted = inputs.get("upload-sarif").copied().unwrap_or("true") == "true";
            uploaded = wanted && outputs.get("sarif").is_some_and(|s: &String| !s.is_empty());
            continue;
        }
        let script = step["run"].as_str().expect("run");
        assert!(
            !script.contains("${{"),
            "an expression in a run script: {script}"
        );
        assert_eq!(step["shell"].as_str(), Some("bash"));
        std::fs::write(&github_output, "").expect("reset GITHUB_OUTPUT");
        let mut cmd = release.command("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .env("GITHUB_ACTION_PATH", repo_root())
            .env("GITHUB_OUTPUT", &github_output)
            .env("GITHUB_PATH", release.path("runner-temp/github-path"));
        if let Some(env) = step["env"].as_hash() {
            for (k, v) in env {
                let (Some(k), Some(v)) = (k.as_str(), v.as_str()) else {
                    panic!("env entry {k:?}: {v:?}");
                };
                cmd.env(k, evaluate(v, declared, &inputs, &outputs));
            }
        }
        if !inputs.contains_key("release-base-url") {
            cmd.env("MCP_WARDEN_RELEASE_BASE_URL", release.base_url());
        }
        let run = Run::from(cmd.output().expect("run step"));
        if step["id"].as_str() == Some("doctor") {
            run.expect_code(0);
            let written = std::fs::read_to_string(&github_output).expect("GITHUB_OUTPUT");
            for line in written.lines() {
                let (k, v) = line.split_once('=').expect("key=value");
                outputs.insert(k.to_string(), v.to_string());
            }
        }
        last = Some(run);
    }
    let last = last.expect("a final step");
    (last.code, uploaded, last)
}

#[test]
fn the_action_uploads_after_findings_and_ends_with_doctors_exit_code() {
    let release = Release::new(&bin(), Checksum::Right);
    std::fs::write(release.path("workspace/.mcp.json"), UNPINNED_NPX).expect("write config");
    let (code, uploaded, run) = run_action(&release, &[("config", ".mcp.json")]);
    assert_eq!((code, uploaded), (1, true), "{}", run.all());
    let (code, uploaded, _) = run_action(
        &release,
        &[("config", ".mcp.json"), ("fail-on", "critical")],
    );
    assert_eq!((code, uploaded), (0, true));
    let (code, uploaded, _) = run_action(
        &release,
        &[
            ("config", ".mcp.json"),
            ("fail-on", "critical"),
            ("upload-sarif", "false"),
        ],
    );
    assert_eq!((code, uploaded), (0, false));
    let (code, _, _) = run_action(&release, &[("config", ".mcp.json"), ("fail-on", "bogus")]);
    assert_eq!(code, 2);

    // A failed verification fails the job, with nothing to upload.
    let bad = Release::new(&bin(), Checksum::Wrong);
    std::fs::write(bad.path("workspace/.mcp.json"), UNPINNED_NPX).expect("write config");
    let (code, uploaded, _) = run_action(&bad, &[("config", ".mcp.json")]);
    assert_eq!((code, uploaded), (2, false));
}

#[test]
fn the_actions_inputs_are_documented() {
    let text = std::fs::read_to_string(repo_root().join("action.yml")).expect("action.yml");
    let action = &YamlLoader::load_from_str(&text).expect("yaml")[0];
    let docs = std::fs::read_to_string(repo_root().join("docs/ci.md")).expect("docs/ci.md");
    let declared = action["inputs"].as_hash().expect("inputs");
    assert!(!declared.is_empty());
    for (name, spec) in declared {
        let name = name.as_str().expect("input name");
        assert!(
            docs.contains(&format!("| `{name}` |")),
            "docs/ci.md lacks input {name}"
        );
        assert!(
            spec["description"].as_str().is_some(),
            "{name} has no description"
        );
        // Every input is used (in `env:`, or the upload's `if:`).
        assert!(
            text.contains(&format!("inputs.{name} ")),
            "{name} is unused"
        );
    }
    for (name, _) in action["outputs"].as_hash().expect("outputs") {
        let name = name.as_str().expect("output name");
        assert!(
            docs.contains(&format!("| `{name}` |")),
            "docs/ci.md lacks output {name}"
        );
    }
    // The flags the script passes are doctor's own.
    let help = Run::from(
        Command::new(bin())
            .args(["doctor", "--help"])
            .output()
            .expect("doctor --help"),
    );
    let script =
        std::fs::read_to_string(repo_root().join("scripts/action/run.sh")).expect("run.sh");
    for flag in ["--config", "--no-discover", "--fail-on", "--sarif"] {
        assert!(help.stdout.contains(flag), "doctor has no {flag}");
        assert!(script.contains(flag), "run.sh does not pass {flag}");
    }
}
