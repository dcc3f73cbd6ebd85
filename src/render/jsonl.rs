//! `--json`: one JSON object per finding.
