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
}

macro_rules! rules {
    ($( $variant:ident => $code:literal, $sev:ident, $short:literal, $help:literal; )*) => {
        /// Every rule mcp-warden reports.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum RuleId { $( $variant, )* }

        /// The catalog, in documentation order.
        pub static RULES: &[Rule] = &[
            $( Rule { id: RuleId::$variant, code: $code, severity: Severity::$sev, short: $short, help: $help }, )*
        ];
    };
}

rules! {
    AuthUrlCredential => "WRD-AUTH-URL-CREDENTIAL", High,
        "The endpoint URL embeds a userinfo credential.",
        "Remove user:password@ from the URL and send the credential in a header that references a secret manager or environment variable (${VAR}).";
    AuthPlaintextHttp => "WRD-AUTH-PLAINTEXT-HTTP", High,
        "A remote endpoint is reached over cleartext http:// or ws://.",
        "Use https:// (or wss://). Cleartext is acceptable only for loopback endpoints.";
    AuthNoAuth => "WRD-AUTH-NOAUTH", Medium,
        "A remote server declares no authentication material.",
        "Add an Authorization (or token/API-key) header or environment variable that references a secret, or confirm the endpoint is meant to be public.";
    AuthTokenInConfig => "WRD-AUTH-TOKEN-IN-CONFIG", High,
        "An auth-shaped header or env key holds a literal credential.",
        "Replace the literal with a reference such as ${VAR} and keep the secret in the environment or a secret manager; rotate the exposed credential.";
    AuthPlaceholderSecret => "WRD-AUTH-PLACEHOLDER-SECRET", Low,
        "An auth-shaped key holds a placeholder instead of a credential or reference.",
        "Replace the placeholder with a reference (${VAR}) to the real secret, or remove the key.";
    SecOpenai => "WRD-SEC-OPENAI", Critical,
        "An OpenAI-style secret key (sk-...) appears in the config.",
        "Remove the key from the config, rotate it, and reference it from the environment (${VAR}).";
    SecGithub => "WRD-SEC-GITHUB", Critical,
        "A GitHub token (ghp_/gho_/ghu_/ghs_/ghr_) appears in the config.",
        "Revoke the token, remove it from the config, and reference it from the environment (${VAR}).";
    SecAwsAkid => "WRD-SEC-AWS-AKID", Critical,
        "An AWS access key id (AKIA...) appears in the config.",
        "Deactivate the key in IAM, remove it from the config, and use a credential provider or ${VAR} reference.";
    SecSlack => "WRD-SEC-SLACK", Critical,
        "A Slack token (xox?-) appears in the config.",
        "Revoke the token, remove it from the config, and reference it from the environment (${VAR}).";
    SecPrivkey => "WRD-SEC-PRIVKEY", Critical,
        "A private key block appears in the config.",
        "Remove the key material from the config, rotate the key, and point the server at a key file or agent instead.";
    SecJwt => "WRD-SEC-JWT", High,
        "A JSON Web Token appears in the config.",
        "Remove the token from the config and reference it from the environment (${VAR}); treat it as exposed.";
    SecEntropy => "WRD-SEC-ENTROPY", High,
        "A high-entropy token that looks like a secret appears in the config.",
        "If this is a credential, move it to the environment and reference it (${VAR}); if it is not, it can be ignored.";
    SupCurlPipe => "WRD-SUP-CURL-PIPE", Critical,
        "The launch command fetches remote code and pipes it to an interpreter.",
        "Install a pinned, verified release and launch it directly instead of curl | sh.";
    SupLatestTag => "WRD-SUP-LATEST-TAG", High,
        "The launch command asks for a floating 'latest' package tag.",
        "Pin an exact version (pkg@1.2.3, pkg==1.2.3) so the code that runs is the code you reviewed.";
    SupNpxUnpinned => "WRD-SUP-NPX-UNPINNED", High,
        "An npx-style launcher runs a package without a pinned version.",
        "Pin the package to an exact version (npx -y pkg@1.2.3).";
    SupUvxUnpinned => "WRD-SUP-UVX-UNPINNED", High,
        "A uvx-style launcher runs a package without a pinned version.",
        "Pin the package (uvx pkg==1.2.3) or use --require-hashes.";
    SupPipUnpinned => "WRD-SUP-PIP-UNPINNED", High,
        "The launch command pip-installs a package without a pinned version.",
        "Pin the requirement (pkg==1.2.3) or install with --require-hashes.";
    DoctorAmbiguousServer => "WRD-DOCTOR-AMBIGUOUS-SERVER", Medium,
        "A server name is declared under both mcpServers and servers with different bodies.",
        "Keep exactly one definition: a decoy in one map can hide the one the client loads.";
    DoctorNoLock => "WRD-DOCTOR-NO-LOCK", Low,
        "No warden.lock pins this server's launch.",
        "Run the printed mcp-warden pin command, review and commit the lock, and run mcp-warden check in CI.";
    DoctorLockUnapproved => "WRD-DOCTOR-LOCK-UNAPPROVED", Medium,
        "A warden.lock matches this server but its approval does not bind the pinned surface.",
        "Review the lock, then record approval with mcp-warden lock rotate <lock> --approver <id>.";
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

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

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
