//! The rule catalog: one table from which JSONL, SARIF and `docs/rules.md` are built.
//!
//! Rule ids and severities are part of the public contract (users filter on them in
//! CI), so they match the earlier implementation exactly. A unit test keeps the ids
//! unique and stable.

use std::fmt;

/// Severity as printed in reports and JSONL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Critical,
    High,
    Medium,
    Low,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
        }
    }

    /// SARIF / JSONL `level`: critical and high are errors, medium a warning, low a note.
    pub fn level(self) -> &'static str {
        match self {
            Severity::Critical | Severity::High => "error",
            Severity::Medium => "warning",
            Severity::Low => "note",
        }
    }

    /// GitHub code scanning's `security-severity` (a CVSS-like score as a string).
    pub fn security_severity(self) -> &'static str {
        match self {
            Severity::Critical => "9.5",
            Severity::High => "8.0",
            Severity::Medium => "5.5",
            Severity::Low => "2.0",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One row of the catalog.
#[derive(Debug)]
pub struct Rule {
    pub id: RuleId,
    pub code: &'static str,
    pub severity: Severity,
    /// One line: what the rule detects (SARIF `shortDescription`).
    pub short: &'static str,
    /// How to fix it (SARIF `help.text`, docs/rules.md).
    pub help: &'static str,
    /// The fix as one short imperative line: what the text report prints under a
    /// finding that has no fix command of its own, and docs/rules.md's "Fix".
    pub fix: &'static str,
}

macro_rules! rules {
    ($( $variant:ident => $code:literal, $sev:ident, $short:literal, $help:literal, $fix:literal; )*) => {
        /// Every rule mcp-warden reports.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum RuleId { $( $variant, )* }

        /// The catalog, in documentation order.
        pub static RULES: &[Rule] = &[
            $( Rule { id: RuleId::$variant, code: $code, severity: Severity::$sev, short: $short, help: $help, fix: $fix }, )*
        ];
    };
}

rules! {
    AuthUrlCredential => "WRD-AUTH-URL-CREDENTIAL", High,
        "The endpoint URL embeds a userinfo credential (user:password@host).",
        "Remove user:password@ from the URL and send the credential in a header whose value references the environment or a secret manager (Authorization: Bearer ${TOKEN}). Rotate the exposed password.",
        "Move the credential out of the URL into a header that references a secret (${TOKEN}); rotate it.";
    AuthPlaintextHttp => "WRD-AUTH-PLAINTEXT-HTTP", High,
        "A remote endpoint is reached over cleartext http:// or ws://.",
        "Use https:// (or wss://). Cleartext is acceptable only for loopback endpoints: localhost, 127.0.0.0/8, [::1].",
        "Change the URL to https:// (or wss://).";
    AuthNoAuth => "WRD-AUTH-NOAUTH", Medium,
        "A remote server declares no authentication material.",
        "Send credentials the server can check: an Authorization (or X-API-Key, token, cookie) header or env entry whose value references a secret (${TOKEN}). If the endpoint is deliberately public, record that decision where reviewers see it.",
        "Add an Authorization header that references a secret (${TOKEN}), or record why it is public.";
    AuthTokenInConfig => "WRD-AUTH-TOKEN-IN-CONFIG", High,
        "A credential is written literally in the config (header, env, launch argument or URL parameter).",
        "Replace the literal with a reference such as ${TOKEN} (or $TOKEN, %TOKEN%, op://vault/item/field) and keep the secret in the environment or a secret manager. Treat the literal as exposed: rotate it.",
        "Replace the literal with a reference such as ${TOKEN} and rotate the credential.";
    AuthPlaceholderSecret => "WRD-AUTH-PLACEHOLDER-SECRET", Low,
        "An auth-shaped key holds a template placeholder instead of a credential or reference.",
        "Replace the placeholder (YOUR_API_KEY, <token>, changeme) with a reference to the real secret (${TOKEN}), or remove the entry.",
        "Replace the placeholder with a reference to the real secret (${TOKEN}), or remove it.";
    SecOpenai => "WRD-SEC-OPENAI", Critical,
        "An sk- style API key (OpenAI, including sk-proj-; Anthropic sk-ant-) appears in the config.",
        "Revoke the key at the provider, remove it from the config, and reference it from the environment (${OPENAI_API_KEY}).",
        "Revoke the key and replace it with a reference (${OPENAI_API_KEY}).";
    SecGithub => "WRD-SEC-GITHUB", Critical,
        "A GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_) appears in the config.",
        "Revoke the token in GitHub settings, remove it from the config, and reference it from the environment (${GITHUB_TOKEN}).",
        "Revoke the token and replace it with a reference (${GITHUB_TOKEN}).";
    SecAwsAkid => "WRD-SEC-AWS-AKID", Critical,
        "An AWS access key id (AKIA...) appears in the config.",
        "Deactivate the key in IAM, remove it from the config, and let the server use the AWS credential chain (profile, SSO, role) instead.",
        "Deactivate the key in IAM and remove it; use the AWS credential chain instead.";
    SecSlack => "WRD-SEC-SLACK", Critical,
        "A Slack token (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-) appears in the config.",
        "Revoke the token in the Slack app settings, remove it from the config, and reference it from the environment (${SLACK_BOT_TOKEN}).",
        "Revoke the token and replace it with a reference (${SLACK_BOT_TOKEN}).";
    SecPrivkey => "WRD-SEC-PRIVKEY", Critical,
        "A private key block (-----BEGIN ... PRIVATE KEY-----) appears in the config.",
        "Remove the key material from the config, rotate the key pair, and point the server at a key file with restricted permissions or an agent.",
        "Remove the key material, rotate the key pair, and point the server at a protected key file.";
    SecJwt => "WRD-SEC-JWT", High,
        "A JSON Web Token appears in the config.",
        "Remove the token from the config and reference it from the environment (${TOKEN}); treat it as exposed until it expires or is revoked.",
        "Remove the token and replace it with a reference (${TOKEN}).";
    SecEntropy => "WRD-SEC-ENTROPY", High,
        "A high-entropy, token-shaped string that looks like a secret appears in the config.",
        "If it is a credential, move it to the environment, reference it (${TOKEN}) and rotate it. If it is not (a hash, an id), no action is needed.",
        "If it is a credential, replace it with a reference (${TOKEN}) and rotate it.";
    SupCurlPipe => "WRD-SUP-CURL-PIPE", Critical,
        "The launch command downloads code and executes it (curl | sh, bash -c \"$(curl ...)\").",
        "Install a pinned, verified release and launch it directly; never fetch and execute at launch time.",
        "Launch a pinned, installed release directly instead of fetching and running code.";
    SupLatestTag => "WRD-SUP-LATEST-TAG", High,
        "The launch command asks for the floating 'latest' tag of a package.",
        "Pin an exact version (npx -y pkg@1.2.3, uvx pkg==1.2.3) so the code that runs is the code you reviewed.",
        "Replace 'latest' with an exact version (pkg@1.2.3, pkg==1.2.3).";
    SupNpxUnpinned => "WRD-SUP-NPX-UNPINNED", High,
        "An npm-style launcher (npx, bunx, npm exec, pnpm dlx, yarn dlx) runs a package without a pinned version.",
        "Pin the package to an exact version (npx -y pkg@1.2.3); every launch otherwise runs whatever the registry serves that day.",
        "Pin the package to an exact version (npx -y pkg@1.2.3).";
    SupUvxUnpinned => "WRD-SUP-UVX-UNPINNED", High,
        "A Python launcher (uvx, uv tool run, uv run --with, pipx run) runs a package without a pinned version.",
        "Pin the package (uvx pkg==1.2.3 or uvx pkg@1.2.3; pipx run --spec pkg==1.2.3), pin a git source to a full commit, or install with --require-hashes.",
        "Pin the package to an exact version (uvx pkg==1.2.3).";
    SupPipUnpinned => "WRD-SUP-PIP-UNPINNED", High,
        "The launch command pip-installs a package without a pinned version.",
        "Pin the requirement (pkg==1.2.3), pin a git source to a full commit, or install from a requirements file with --require-hashes.",
        "Pin the requirement to an exact version (pkg==1.2.3) or use --require-hashes.";
    DoctorAmbiguousServer => "WRD-DOCTOR-AMBIGUOUS-SERVER", Medium,
        "A server entry can be read more than one way: its name is declared twice (under both mcpServers and servers, or twice in one map), it repeats a key, or its clients start different things from it.",
        "Keep exactly one definition that says one thing: a decoy copy or reading can hide the one the client starts. doctor audits every copy and every reading.",
        "Keep one definition of the server and delete the other copies.";
    DoctorVariableLaunch => "WRD-DOCTOR-VARIABLE-LAUNCH", Medium,
        "The launch command (or the URL) depends on a variable the client expands when it starts the server.",
        "Write the command or URL literally. doctor audits the launch with every variable unset and defaults applied; with the variable set, the client starts something else.",
        "Write the command or URL literally, without variable references.";
    DoctorHeadersHelper => "WRD-DOCTOR-HEADERS-HELPER", Medium,
        "A remote server's headersHelper is a shell command Claude Code runs at every connection.",
        "Review the helper like a launch command; prefer static headers that reference the environment (${TOKEN}).",
        "Review the helper command, or replace it with static headers that reference secrets.";
    ClientProjectAutoApprove => "WRD-CLIENT-PROJECT-AUTO-APPROVE", High,
        "A client setting starts a project's MCP servers without asking: Claude Code enableAllProjectMcpServers: true, or an enabledMcpjsonServers entry naming a server of a project .mcp.json.",
        "Remove enableAllProjectMcpServers and the enabledMcpjsonServers entry, so Claude Code asks before it starts a server a repository declares; review each server before approving it. The finding is at each server approved in a session in the current directory or in any directory a project settings file or ~/.claude.json projects[<path>] belongs to (the message names that directory), or at the setting when no discovered .mcp.json falls under it (a user or managed setting approves every project's servers, unless a higher one overrides it everywhere).",
        "Remove the approving setting so the client asks before starting project servers.";
    ClientToolAutoApprove => "WRD-CLIENT-TOOL-AUTO-APPROVE", Medium,
        "A server's tools run without confirmation: Gemini CLI trust: true, Cline/Kiro autoApprove or Roo Code alwaysAllow tools, a Codex approval mode of approve, Claude Code permissions.allow mcp__<server> entries, or (at the settings file) VS Code chat.tools.autoApprove.",
        "Remove the setting (or the listed tools) so the client asks before each tool call; keep only read-only tools you have reviewed, and pin the server so a change to its tools is noticed.",
        "Remove the auto-approval (or the listed tools) so the client asks before each call.";
    ClientDiscoveryImport => "WRD-CLIENT-DISCOVERY-IMPORT", Low,
        "VS Code's chat.mcp.discovery.enabled imports MCP servers from other applications' configs (Claude Desktop, Cursor, Windsurf, ...).",
        "Set chat.mcp.discovery.enabled to false (or each source to false) and configure the servers you want in VS Code's own mcp.json, so a server added to another application does not start in VS Code too.",
        "Set chat.mcp.discovery.enabled to false and declare servers in VS Code's mcp.json.";
    DoctorNoLock => "WRD-DOCTOR-NO-LOCK", Low,
        "No warden.lock pins this server's launch.",
        "Run the pin command printed under Next steps, review and commit the lock, then add the printed check step to CI.",
        "Run the pin command under Next steps and commit the lock.";
    DoctorLockUnapproved => "WRD-DOCTOR-LOCK-UNAPPROVED", Medium,
        "A warden.lock matches this server but its approval does not bind the pinned surface.",
        "Review the lock, then record the approval with the lock rotate command at the end of the finding (a stale or inconsistent lock must be pinned again).",
        "Review the lock, then approve it with mcp-warden lock rotate (or pin again).";
    DoctorIgnoreExpired => "WRD-DOCTOR-IGNORE-EXPIRED", Low,
        "A suppression in the user's ignore.toml is past its expires date; it no longer suppresses anything.",
        "Review the findings it covered (they are reported again at their own severity): fix them, or renew the entry with a new expires date and reason, or delete it.",
        "Fix the findings it covered, or renew the entry with a new expires date and reason.";
    DoctorIgnoreInvalid => "WRD-DOCTOR-IGNORE-INVALID", Medium,
        "A suppression in the user's ignore.toml is malformed (a missing or blank reason, a date that is not YYYY-MM-DD, an unknown rule id, a bad target glob, an unknown key), or the file itself cannot be used (a symlink below the configuration directory); it suppresses nothing.",
        "Correct the entry: rule is one rule id, target a glob over the finding's target, reason says why, expires is the last day it applies (YYYY-MM-DD). A symlinked ignore.toml is never followed: replace the link with the file, or name it with --ignore-file.",
        "Correct the entry (rule, target, reason, expires), or replace a symlinked file with the file.";
    CapShell => "WRD-CAP-SHELL", Critical,
        "A pinned tool can run shell commands.",
        "Capabilities are derived from the tool's name and input properties. Confirm the server needs this power, restrict it where the client allows, and keep the lock under review so a change is noticed.",
        "Confirm the server needs shell access and restrict it where the client allows.";
    CapFsWrite => "WRD-CAP-FS-WRITE", High,
        "A pinned tool can write files.",
        "Capabilities are derived from the tool's name and input properties. Confirm the server needs this power, restrict it where the client allows, and keep the lock under review so a change is noticed.",
        "Confirm the server needs to write files and restrict it where the client allows.";
    CapFsRead => "WRD-CAP-FS-READ", Medium,
        "A pinned tool can read files.",
        "Capabilities are derived from the tool's name and input properties. Confirm the server needs this power, restrict it where the client allows, and keep the lock under review so a change is noticed.",
        "Confirm the server needs to read files and restrict it where the client allows.";
    CapHttp => "WRD-CAP-HTTP", High,
        "A pinned tool can make network requests.",
        "Capabilities are derived from the tool's name and input properties. Confirm the server needs this power, restrict it where the client allows, and keep the lock under review so a change is noticed.",
        "Confirm the server needs outbound HTTP and restrict it where the client allows.";
    CapSql => "WRD-CAP-SQL", High,
        "A pinned tool can run database queries.",
        "Capabilities are derived from the tool's name and input properties. Confirm the server needs this power, restrict it where the client allows, and keep the lock under review so a change is noticed.",
        "Confirm the server needs to run SQL and restrict it where the client allows.";
    SchemaMalformed => "WRD-SCHEMA-MALFORMED", Low,
        "A pinned tool's inputSchema is not a JSON object.",
        "The MCP schema requires an object inputSchema; capability analysis was skipped for this tool. Report it to the server's maintainers.",
        "Report the tool's malformed inputSchema to the server's maintainers.";
    DriftServerIdentity => "WRD-DRIFT-SERVER-IDENTITY", Critical,
        "The server's launch (command, args or URL) differs from the pinned one.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftToolAdded => "WRD-DRIFT-TOOL-ADDED", High,
        "The server declares a tool the lock does not pin.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftToolRemoved => "WRD-DRIFT-TOOL-REMOVED", Medium,
        "A pinned tool is no longer declared.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftSchemaModified => "WRD-DRIFT-SCHEMA-MODIFIED", High,
        "A tool's input or output schema changed in a way that changes what it accepts or returns (reports name the change, e.g. WRD-DRIFT-SCHEMA-ENUM-REMOVED).",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftSchemaCosmeticModified => "WRD-DRIFT-SCHEMA-COSMETIC-MODIFIED", Low,
        "A tool's input schema changed without changing what it accepts.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftCapabilityAdded => "WRD-DRIFT-CAPABILITY-ADDED", High,
        "A tool gained a derived capability (shell, fs, http, sql).",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftCapabilityRemoved => "WRD-DRIFT-CAPABILITY-REMOVED", Medium,
        "A tool lost a derived capability.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftDescriptionModified => "WRD-DRIFT-DESCRIPTION-MODIFIED", Low,
        "A tool's description changed (a common prompt-injection vector).",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftInspectionPolicyModified => "WRD-DRIFT-INSPECTION-POLICY-MODIFIED", Medium,
        "A tool's declared inspection policy changed.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftToolAnnotationsModified => "WRD-DRIFT-TOOL-ANNOTATIONS-MODIFIED", High,
        "A tool's annotations (hints such as readOnly or destructive) changed.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftSchemaOutAdded => "WRD-DRIFT-SCHEMA-OUT-ADDED", High,
        "A tool gained an output schema.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftSchemaOutRemoved => "WRD-DRIFT-SCHEMA-OUT-REMOVED", High,
        "A tool's output schema was removed.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftResourceAdded => "WRD-DRIFT-RESOURCE-ADDED", Medium,
        "The server declares a resource the lock does not pin.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftResourceRemoved => "WRD-DRIFT-RESOURCE-REMOVED", Low,
        "A pinned resource is no longer declared.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftResourceModified => "WRD-DRIFT-RESOURCE-MODIFIED", Low,
        "A pinned resource's metadata changed.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftPromptAdded => "WRD-DRIFT-PROMPT-ADDED", Medium,
        "The server declares a prompt the lock does not pin.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftPromptRemoved => "WRD-DRIFT-PROMPT-REMOVED", Low,
        "A pinned prompt is no longer declared.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftPromptModified => "WRD-DRIFT-PROMPT-MODIFIED", Low,
        "A pinned prompt's description or arguments changed.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftUnapprovedChange => "WRD-DRIFT-UNAPPROVED-CHANGE", High,
        "The surface changed since it was approved.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
    DriftSchemaVersionMigrated => "WRD-DRIFT-SCHEMA-VERSION-MIGRATED", Low,
        "The lock was written at an older schema version.",
        "The server's declared surface no longer matches warden.lock. Review the change; if it is expected, pin it again and approve the new lock, otherwise treat the server as compromised or misconfigured.",
        "Review the change; pin again and approve the new lock if it is expected.";
}

impl RuleId {
    pub fn rule(self) -> &'static Rule {
        // The table is generated from the same list as the enum, in the same order.
        &RULES[self as usize]
    }

    pub fn as_str(self) -> &'static str {
        self.rule().code
    }

    pub fn severity(self) -> Severity {
        self.rule().severity
    }
}

impl RuleId {
    /// The rule with this public id, if any.
    pub fn from_code(code: &str) -> Option<RuleId> {
        RULES.iter().find(|r| r.code == code).map(|r| r.id)
    }

    /// `WRD-CAP-*` for a capability flag of the lock tokenizer.
    pub fn for_capability(flag: &str) -> Option<RuleId> {
        Some(match flag {
            "shell-exec" => RuleId::CapShell,
            "fs-write" => RuleId::CapFsWrite,
            "fs-read" => RuleId::CapFsRead,
            "http-request" => RuleId::CapHttp,
            "sql-query" => RuleId::CapSql,
            _ => return None,
        })
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{HashSet, HashSetExt};

    /// One documented example per rule: a server entry that fires it and the fixed
    /// entry. For engine rules both are checked against the engines.
    struct Example {
        id: RuleId,
        fires: &'static str,
        fixed: &'static str,
    }

    const EXAMPLES: &[Example] = &[
        Example { id: RuleId::AuthUrlCredential,
            fires: r#"{"url": "https://svc:s3cret@mcp.example.com/mcp"}"#,
            fixed: r#"{"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${MCP_TOKEN}"}}"# },
        Example { id: RuleId::AuthPlaintextHttp,
            fires: r#"{"url": "http://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${MCP_TOKEN}"}}"#,
            fixed: r#"{"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${MCP_TOKEN}"}}"# },
        Example { id: RuleId::AuthNoAuth,
            fires: r#"{"url": "https://mcp.example.com/mcp"}"#,
            fixed: r#"{"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${MCP_TOKEN}"}}"# },
        Example { id: RuleId::AuthTokenInConfig,
            fires: r#"{"command": "node", "args": ["server.js"], "env": {"API_TOKEN": "hunter2!"}}"#,
            fixed: r#"{"command": "node", "args": ["server.js"], "env": {"API_TOKEN": "${API_TOKEN}"}}"# },
        Example { id: RuleId::AuthPlaceholderSecret,
            fires: r#"{"command": "node", "args": ["server.js"], "env": {"API_KEY": "YOUR_API_KEY"}}"#,
            fixed: r#"{"command": "node", "args": ["server.js"], "env": {"API_KEY": "${API_KEY}"}}"# },
        Example { id: RuleId::SecOpenai,
            fires: r#"{"command": "node", "args": ["server.js"], "env": {"OPENAI_API_KEY": "sk-EXAMPLEexample0123456789abcd"}}"#,
            fixed: r#"{"command": "node", "args": ["server.js"], "env": {"OPENAI_API_KEY": "${OPENAI_API_KEY}"}}"# },
        Example { id: RuleId::SecGithub,
            fires: r#"{"command": "node", "args": ["server.js", "--token", "ghp_EXAMPLEexampleEXAMPLEexample01234567"]}"#,
            fixed: r#"{"command": "node", "args": ["server.js"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}"# },
        Example { id: RuleId::SecAwsAkid,
            fires: r#"{"command": "node", "args": ["server.js"], "env": {"AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE"}}"#,
            fixed: r#"{"command": "node", "args": ["server.js"], "env": {"AWS_PROFILE": "mcp-readonly"}}"# },
        Example { id: RuleId::SecSlack,
            fires: r#"{"command": "node", "args": ["server.js"], "env": {"SLACK_BOT_TOKEN": "xoxb-0000000000-EXAMPLEexample"}}"#,
            fixed: r#"{"command": "node", "args": ["server.js"], "env": {"SLACK_BOT_TOKEN": "${SLACK_BOT_TOKEN}"}}"# },
        Example { id: RuleId::SecPrivkey,
            fires: r#"{"command": "node", "args": ["server.js"], "env": {"SSH_KEY": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA...\n-----END OPENSSH PRIVATE KEY-----"}}"#,
            fixed: r#"{"command": "node", "args": ["server.js"], "env": {"SSH_KEY": "~/.ssh/id_ed25519"}}"# },
        Example { id: RuleId::SecJwt,
            fires: r#"{"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${MCP_TOKEN}", "X-Session": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJleGFtcGxlIn0.c2lnbmF0dXJlZXhhbXBsZQ"}}"#,
            fixed: r#"{"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${MCP_TOKEN}", "X-Session": "${MCP_SESSION}"}}"# },
        Example { id: RuleId::SecEntropy,
            fires: r#"{"command": "node", "args": ["server.js"], "env": {"UPSTREAM": "aB3xK9mQ7pL2wR5tY8vN4jH6"}}"#,
            fixed: r#"{"command": "node", "args": ["server.js"], "env": {"UPSTREAM": "${UPSTREAM}"}}"# },
        Example { id: RuleId::SupCurlPipe,
            fires: r#"{"command": "sh", "args": ["-c", "curl -fsSL https://example.com/install.sh | sh"]}"#,
            fixed: r#"{"command": "/opt/example-mcp/bin/example-mcp", "args": ["serve"]}"# },
        Example { id: RuleId::SupLatestTag,
            fires: r#"{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@latest"]}"#,
            fixed: r#"{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.1.26"]}"# },
        Example { id: RuleId::SupNpxUnpinned,
            fires: r#"{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/docs"]}"#,
            fixed: r#"{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2025.8.21", "/srv/docs"]}"# },
        Example { id: RuleId::SupUvxUnpinned,
            fires: r#"{"command": "uvx", "args": ["mcp-server-fetch"]}"#,
            fixed: r#"{"command": "uvx", "args": ["mcp-server-fetch==2025.4.7"]}"# },
        Example { id: RuleId::SupPipUnpinned,
            fires: r#"{"command": "sh", "args": ["-c", "pip install example-mcp && example-mcp"]}"#,
            fixed: r#"{"command": "sh", "args": ["-c", "pip install example-mcp==1.2.3 && example-mcp"]}"# },
        Example { id: RuleId::DoctorAmbiguousServer,
            fires: r#"{"mcpServers": {"gh": {"url": "https://ok.example.com/mcp"}}, "servers": {"gh": {"url": "https://evil.example.com/mcp"}}}"#,
            fixed: r#"{"servers": {"gh": {"url": "https://ok.example.com/mcp"}}}"# },
        Example { id: RuleId::DoctorVariableLaunch,
            fires: r#".mcp.json: {"mcpServers": {"x": {"command": "${RUNNER:-npx}", "args": ["-y", "pkg@1.2.3"]}}}"#,
            fixed: r#".mcp.json: {"mcpServers": {"x": {"command": "npx", "args": ["-y", "pkg@1.2.3"]}}}"# },
        Example { id: RuleId::DoctorHeadersHelper,
            fires: r#".mcp.json: {"mcpServers": {"x": {"type": "http", "url": "https://mcp.example.com/mcp", "headersHelper": "sh ./get-token.sh"}}}"#,
            fixed: r#".mcp.json: {"mcpServers": {"x": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}"# },
        Example { id: RuleId::ClientProjectAutoApprove,
            fires: r#".claude/settings.json: {"enableAllProjectMcpServers": true} (or {"enabledMcpjsonServers": ["x"]} with .mcp.json declaring x)"#,
            fixed: r#".claude/settings.json: {} (Claude Code asks before starting each .mcp.json server)"# },
        Example { id: RuleId::ClientToolAutoApprove,
            fires: r#"Cline: {"mcpServers": {"x": {"command": "npx", "args": ["-y", "pkg@1.2.3"], "autoApprove": ["write_file"]}}}"#,
            fixed: r#"Cline: {"mcpServers": {"x": {"command": "npx", "args": ["-y", "pkg@1.2.3"], "autoApprove": []}}}"# },
        Example { id: RuleId::ClientDiscoveryImport,
            fires: r#"VS Code settings.json: {"chat.mcp.discovery.enabled": true}"#,
            fixed: r#"VS Code settings.json: {"chat.mcp.discovery.enabled": false}"# },
        Example { id: RuleId::DoctorNoLock,
            fires: r#"{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.1.26"]}"#,
            fixed: "mcp-warden pin npx -y @modelcontextprotocol/server-memory@2026.1.26 --approve --approver you@example.com --lock memory.warden.lock" },
        Example { id: RuleId::DoctorLockUnapproved,
            fires: r#"memory.warden.lock with "pin": {"approved": false, ...}"#,
            fixed: "mcp-warden lock rotate memory.warden.lock --approver you@example.com" },
        Example { id: RuleId::DoctorIgnoreExpired,
            fires: "[[ignore]]\nrule = \"WRD-SUP-NPX-UNPINNED\"\ntarget = \"~/.cursor/mcp.json#*\"\nreason = \"pinned by the internal mirror\"\nexpires = \"2020-01-31\"",
            fixed: "[[ignore]]\nrule = \"WRD-SUP-NPX-UNPINNED\"\ntarget = \"~/.cursor/mcp.json#*\"\nreason = \"pinned by the internal mirror (reviewed again)\"\nexpires = \"2027-01-31\"" },
        Example { id: RuleId::DoctorIgnoreInvalid,
            fires: "[[ignore]]\nrule = \"WRD-SUP-NPX-UNPINNED\"\ntarget = \"~/.cursor/mcp.json#*\"\nexpires = \"2027-31-01\"",
            fixed: "[[ignore]]\nrule = \"WRD-SUP-NPX-UNPINNED\"\ntarget = \"~/.cursor/mcp.json#*\"\nreason = \"pinned by the internal mirror\"\nexpires = \"2027-01-31\"" },
        Example { id: RuleId::CapShell,
            fires: r#"{"name": "run_command", "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}}}}"#,
            fixed: "review what the tool can do, then record approval: mcp-warden lock rotate <lock> --approver you@example.com" },
        Example { id: RuleId::CapFsWrite,
            fires: r#"{"name": "write_file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}"#,
            fixed: "review what the tool can do, then record approval: mcp-warden lock rotate <lock> --approver you@example.com" },
        Example { id: RuleId::CapFsRead,
            fires: r#"{"name": "read_file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}"#,
            fixed: "review what the tool can do, then record approval: mcp-warden lock rotate <lock> --approver you@example.com" },
        Example { id: RuleId::CapHttp,
            fires: r#"{"name": "fetch", "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}}}"#,
            fixed: "review what the tool can do, then record approval: mcp-warden lock rotate <lock> --approver you@example.com" },
        Example { id: RuleId::CapSql,
            fires: r#"{"name": "run_query", "inputSchema": {"type": "object", "properties": {"sql": {"type": "string"}}}}"#,
            fixed: "review what the tool can do, then record approval: mcp-warden lock rotate <lock> --approver you@example.com" },
        Example { id: RuleId::SchemaMalformed,
            fires: r#"{"name": "broken", "inputSchema": "object"}"#,
            fixed: "ask the server's maintainers for an object inputSchema, then re-pin" },
        Example { id: RuleId::DriftServerIdentity,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: server-identity",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftToolAdded,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: tool-added",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftToolRemoved,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: tool-removed",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftSchemaModified,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: schema-modified",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftSchemaCosmeticModified,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: schema-cosmetic-modified",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftCapabilityAdded,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: capability-added",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftCapabilityRemoved,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: capability-removed",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftDescriptionModified,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: description-modified",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftInspectionPolicyModified,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: inspection-policy-modified",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftToolAnnotationsModified,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: tool-annotations-modified",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftSchemaOutAdded,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: schema-out-added",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftSchemaOutRemoved,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: schema-out-removed",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftResourceAdded,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: resource-added",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftResourceRemoved,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: resource-removed",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftResourceModified,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: resource-modified",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftPromptAdded,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: prompt-added",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftPromptRemoved,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: prompt-removed",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftPromptModified,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: prompt-modified",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftUnapprovedChange,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: unapproved-change",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
        Example { id: RuleId::DriftSchemaVersionMigrated,
            fires: "mcp-warden check --lock <lock> -- <argv> after the server changed: schema-version-migrated",
            fixed: "mcp-warden pin <argv> --approve --approver you@example.com --lock <lock>" },
    ];

    /// Rules the static engines fire over a config entry (doctor and pin-time rules
    /// are documented with prose examples and tested by their own suites).
    fn is_engine_rule(id: RuleId) -> bool {
        ["WRD-AUTH-", "WRD-SEC-", "WRD-SUP-"]
            .iter()
            .any(|p| id.as_str().starts_with(p))
    }

    fn render_rules_md() -> String {
        let mut out = String::new();
        out.push_str("# Rules\n\n");
        out.push_str("<!-- Generated from src/rules.rs by `UPDATE_RULES_DOC=1 cargo test --lib rules`; do not edit by hand. -->\n\n");
        out.push_str("Every finding carries one of these rule ids. Ids and severities are stable: filter on them in CI.\n");
        out.push_str("Examples are MCP server entries (the value under `mcpServers.<name>`); every engine example is checked by a unit test.\n\n");
        out.push_str("| Rule | Severity | Detects | Fix |\n|---|---|---|---|\n");
        for r in RULES {
            out.push_str(&format!(
                "| [`{}`](#{}) | {} | {} | {} |\n",
                r.code,
                r.code.to_lowercase(),
                r.severity,
                r.short.replace('|', "\\|"),
                r.fix.replace('|', "\\|")
            ));
        }
        for r in RULES {
            out.push_str(&format!(
                "\n## {}\n\nSeverity: **{}**. {}\n\n",
                r.code, r.severity, r.short
            ));
            if let Some(ex) = EXAMPLES.iter().find(|e| e.id == r.id) {
                let lang = |s: &str| if s.starts_with('{') { "json" } else { "text" };
                out.push_str(&format!(
                    "Fires:\n\n```{}\n{}\n```\n\n",
                    lang(ex.fires),
                    ex.fires
                ));
                out.push_str(&format!(
                    "Fix: {}\n\n{}\n\n```{}\n{}\n```\n",
                    r.fix,
                    r.help,
                    lang(ex.fixed),
                    ex.fixed
                ));
            }
        }
        out
    }

    #[test]
    fn every_rule_has_a_short_one_line_fix() {
        for r in RULES {
            let fix = r.fix;
            assert!(!fix.is_empty() && fix.len() <= 100, "{}: {fix:?}", r.code);
            assert!(!fix.contains(['\n', '\r', '|']), "{}: {fix:?}", r.code);
            assert!(
                fix.starts_with(|c: char| c.is_ascii_uppercase()) && fix.ends_with('.'),
                "{}: the fix is one imperative sentence: {fix:?}",
                r.code
            );
            assert_ne!(fix, r.help, "{}: the fix is shorter than the help", r.code);
        }
    }

    #[test]
    fn every_rule_has_an_example() {
        for r in RULES {
            assert!(
                EXAMPLES.iter().any(|e| e.id == r.id),
                "no example for {}",
                r.code
            );
        }
    }

    #[test]
    fn docs_rules_md_is_up_to_date() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md");
        let want = render_rules_md();
        if std::env::var_os("UPDATE_RULES_DOC").is_some() {
            std::fs::write(path, &want).expect("write docs/rules.md");
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        for r in RULES {
            assert!(
                have.contains(r.code),
                "docs/rules.md does not mention {}",
                r.code
            );
        }
        assert!(
            have == want,
            "docs/rules.md is out of date: run UPDATE_RULES_DOC=1 cargo test --lib rules"
        );
    }

    fn spec(json: &str) -> crate::model::ServerSpec {
        let v: serde_json::Value = serde_json::from_str(json).expect("example is JSON");
        crate::engines::tests::spec_from_json(&v)
    }

    fn fired(json: &str) -> Vec<RuleId> {
        let s = spec(json);
        let mut f = crate::engines::auth::audit_server("example", &s);
        if let Some(cmd) = s.launch_command() {
            f.extend(crate::engines::supply::check_launch(cmd, s.args()));
        }
        f.into_iter().map(|x| x.rule).collect()
    }

    #[test]
    fn engine_examples_fire_and_fixes_do_not() {
        for ex in EXAMPLES.iter().filter(|e| is_engine_rule(e.id)) {
            assert!(
                fired(ex.fires).contains(&ex.id),
                "{} example does not fire: {:?}",
                ex.id,
                fired(ex.fires)
            );
            assert!(
                !fired(ex.fixed).contains(&ex.id),
                "{} fix still fires",
                ex.id
            );
        }
    }

    #[test]
    fn table_order_matches_enum_and_codes_are_unique() {
        let mut seen = HashSet::new();
        for (i, rule) in RULES.iter().enumerate() {
            assert_eq!(rule.id as usize, i);
            assert!(seen.insert(rule.code), "duplicate rule code {}", rule.code);
            assert!(rule.code.starts_with("WRD-"));
        }
    }
}
