//! `--sarif PATH`: SARIF 2.1.0 for GitHub code scanning.
