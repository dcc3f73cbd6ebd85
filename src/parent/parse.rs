//! One exchange with the parser child: the request, the descriptors, the answers.

use std::os::fd::OwnedFd;

use mcp_warden_sandbox::{run_parser, Confinement, Limits, SandboxError, WeakSandboxPolicy};

use super::validate::{check_message, InvalidRecord};
use crate::protocol::{bounds, ChildMessage, FileFormat, FileJob, ParseRequest, PAYLOAD_VERSION};

/// A file ready for the child.
pub struct Job {
    pub fd: OwnedFd,
    pub format: FileFormat,
    pub size_cap: u64,
}

/// The child's answers, one per job in job order, all validated.
pub struct Parsed {
    pub confinement: Confinement,
    pub warnings: Vec<String>,
    pub answers: Vec<ChildMessage>,
}

#[derive(Debug)]
pub enum ParseError {
    Sandbox(SandboxError),
    Invalid(InvalidRecord),
    TooManyFiles(usize),
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Sandbox(e) => write!(f, "parser sandbox failed: {e}"),
            ParseError::Invalid(InvalidRecord(why)) => {
                write!(f, "parser child sent an invalid record ({why}); treating it as compromised, nothing was reported")
            }
            ParseError::TooManyFiles(n) => {
                write!(
                    f,
                    "{n} files to parse exceed the limit of {}",
                    bounds::MAX_FILES
                )
            }
        }
    }
}

/// Hand every job to one confined child and collect its checked answers.
pub fn parse_all(jobs: Vec<Job>, policy: WeakSandboxPolicy) -> Result<Parsed, ParseError> {
    if jobs.len() > bounds::MAX_FILES {
        return Err(ParseError::TooManyFiles(jobs.len()));
    }
    let request = ParseRequest {
        payload_version: PAYLOAD_VERSION,
        jobs: jobs
            .iter()
            .enumerate()
            .map(|(i, j)| FileJob {
                fd_index: i as u32,
                format: j.format,
                size_cap: j.size_cap,
            })
            .collect(),
    };
    let formats: Vec<FileFormat> = jobs.iter().map(|j| j.format).collect();
    let fds: Vec<OwnedFd> = jobs.into_iter().map(|j| j.fd).collect();
    let limits = Limits {
        max_messages: formats.len(),
        ..Limits::default()
    };
    let output = run_parser::<ParseRequest, ChildMessage>(&request, fds, &limits, policy)
        .map_err(ParseError::Sandbox)?;
    super::resources::note_child_reaped();
    if output.messages.len() != formats.len() {
        return Err(ParseError::Invalid(InvalidRecord(format!(
            "{} answers to {} files",
            output.messages.len(),
            formats.len()
        ))));
    }
    for (format, message) in formats.iter().zip(&output.messages) {
        check_message(*format, message).map_err(ParseError::Invalid)?;
    }
    Ok(Parsed {
        confinement: output.confinement,
        warnings: output.warnings,
        answers: output.messages,
    })
}
