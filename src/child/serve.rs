//! The parser child's process entry: confined by the sandbox crate before it reads
//! anything, it answers each job of the parent's request in order.
//!
//! One file cannot take what the others need:
//!
//! * **Answer bytes.** Each answer is checked against the job's share (payload and
//!   decoded size, by the parent's own decoder) before it is sent; a file whose
//!   records do not fit is answered with a `TooLarge` error naming the share, and
//!   the next job goes on.
//! * **Memory.** Files are read and parsed one at a time, and each one's buffer,
//!   tree and answer are freed before the next, except the trees (and answers) left
//!   to the exit while their files total at most `LEAVE_TO_EXIT_BYTES` (9 MiB:
//!   freeing a large tree node by node just before exiting is measurable; leaving
//!   many would add up against the child's address-space limit).

use std::fs::File;

use mcp_warden_sandbox::{serve_child, SandboxError, Sender};

use super::{claude, parse_file_in_child, read_capped};
use crate::protocol::{
    ChildMessage, FileFormat, FileJob, LoadError, LoadErrorKind, ParseRequest, ParsedConfig,
    Section, PAYLOAD_VERSION,
};

/// Input bytes whose parse trees may be left to the process exit, all files together:
/// one discovered config's size cap plus 1 MiB for the small configs handed over
/// before it, so the usual large `~/.claude.json` keeps its fast exit; at most about
/// 32 bytes of tree per input byte (under 300 MiB) stay allocated.
const LEAVE_TO_EXIT_BYTES: u64 = 9 << 20;

/// Run as the parser child (`argv[1]` is the sandbox's child argument). Never returns.
pub fn serve() -> ! {
    serve_child(
        |request: ParseRequest, mut files: Vec<File>, sender: &mut Sender| {
            let mut left_to_exit = 0u64;
            for job in &request.jobs {
                // A `~/.claude.json` sends its project sections ahead as it reads
                // them; a batch that would not fit what its share leaves stays in
                // the answer.
                let mut broken: Option<SandboxError> = None;
                let mut send_ahead = |sections: Vec<Section>| -> Result<(), Vec<Section>> {
                    if broken.is_some() {
                        return Err(sections);
                    }
                    let part = ChildMessage::Config(Ok(ParsedConfig {
                        sections,
                        continues_parts: false,
                    }));
                    match sender.send_part_within(&part, &job.share) {
                        Ok(()) => Ok(()),
                        Err(e) => {
                            if !matches!(e, SandboxError::ShareExceeded { .. }) {
                                broken = Some(e);
                            }
                            match part {
                                ChildMessage::Config(Ok(part)) => Err(part.sections),
                                _ => Err(Vec::new()),
                            }
                        }
                    }
                };
                let ahead = (job.format == FileFormat::ClaudeJson).then_some(claude::SendAhead {
                    send: &mut send_ahead,
                    batch: claude::SECTIONS_AHEAD,
                });
                let (answer, left) = answer(&request, job, &mut files, &mut left_to_exit, ahead);
                if let Some(e) = broken {
                    return Err(e);
                }
                match sender.send_within(&answer, &job.share) {
                    // A file whose tree was left to the exit leaves its records too
                    // (bounded alike: they are at most its decoded share).
                    Ok(()) if left => std::mem::forget(answer),
                    Ok(()) => drop(answer),
                    Err(SandboxError::ShareExceeded {
                        payload,
                        decoded,
                        max_payload,
                        max_decoded,
                    }) => {
                        drop(answer);
                        let message = format!(
                            "its records take {payload} bytes ({decoded} in memory), more than \
                             this file's share of the parser's answer ({max_payload} bytes, \
                             {max_decoded} in memory)"
                        );
                        sender.send_within(
                            &failed(job.format, LoadErrorKind::TooLarge, message),
                            &job.share,
                        )?;
                    }
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        },
    )
}

/// An error answer of the job's kind.
fn failed(format: FileFormat, kind: LoadErrorKind, message: String) -> ChildMessage {
    let error = LoadError {
        kind,
        message,
        construct: None,
    };
    match format {
        FileFormat::Lock => ChildMessage::Lock(Err(error)),
        FileFormat::LockRecord => ChildMessage::LockRecord(Err(error)),
        FileFormat::Ignore => ChildMessage::Ignore(Err(error)),
        _ => ChildMessage::Config(Err(error)),
    }
}

/// The file's size from its descriptor, a read-size hint only (the cap bounds the read).
fn size_hint(file: &File) -> Option<u64> {
    // fstat on the descriptor: the child's filter refuses statx (`File::metadata`).
    mcp_warden_sandbox::file_size(file).ok()
}

/// Files smaller than this are read, not mapped. A mapping costs the same whatever
/// the file's size (a mapping made, its pages entered, then torn down), where a read
/// copies the bytes into memory the child already touched: for the lock files and
/// small configs a home holds (tens of them, under a few KiB each) the read is the
/// cheaper, and a mapping only pays for itself on a file of many pages.
const MAP_FROM: u64 = 64 << 10;

/// The file mapped read-only when it is at least [`MAP_FROM`] bytes and within `cap`
/// by its `fstat` size (`mcp_warden_sandbox::MappedFile`: no copy into memory touched
/// for the first time). `None` sends the caller to [`read_capped`]: a small file, one
/// over the cap (refused there after reading at most `cap + 1` bytes, as before), or
/// a mapping that failed.
fn map_within_cap(
    file: &File,
    size: Option<u64>,
    cap: u64,
) -> Option<mcp_warden_sandbox::MappedFile> {
    let len = size.filter(|&n| n >= MAP_FROM && n <= cap)?;
    mcp_warden_sandbox::MappedFile::map(file, usize::try_from(len).ok()?).ok()
}

/// The answer for one job, and whether its parse tree was left to the exit.
fn answer(
    request: &ParseRequest,
    job: &FileJob,
    files: &mut [File],
    left_to_exit: &mut u64,
    ahead: Option<claude::SendAhead<'_>>,
) -> (ChildMessage, bool) {
    if request.payload_version != PAYLOAD_VERSION {
        let answer = failed(
            job.format,
            LoadErrorKind::Read,
            format!(
                "parser protocol version {} is not {PAYLOAD_VERSION}",
                request.payload_version
            ),
        );
        return (answer, false);
    }
    let Some(file) = usize::try_from(job.fd_index)
        .ok()
        .and_then(|i| files.get_mut(i))
    else {
        let answer = failed(
            job.format,
            LoadErrorKind::Read,
            "no descriptor was handed over for this file".into(),
        );
        return (answer, false);
    };
    let hint = size_hint(file);
    let mapped = map_within_cap(file, hint, job.size_cap);
    let read;
    let bytes: &[u8] = match &mapped {
        Some(mapped) => mapped.bytes(),
        None => match read_capped(file, job.size_cap, hint) {
            Ok(buffer) => {
                read = buffer;
                &read
            }
            Err(error) => return (failed(job.format, error.kind, error.message), false),
        },
    };
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    let leave = left_to_exit.saturating_add(len) <= LEAVE_TO_EXIT_BYTES;
    if leave {
        *left_to_exit += len;
    }
    let answer = parse_file_in_child(job.format, bytes, leave, ahead);
    if mapped
        .as_ref()
        .is_some_and(mcp_warden_sandbox::MappedFile::shrank)
    {
        // What was parsed ran into the zero pages the guard put past the new end:
        // not the file's content. Parts already sent are void without the answer
        // that completes them. (The parse's tree, left to the exit, stays counted.)
        let answer = failed(
            job.format,
            LoadErrorKind::Read,
            "the file became shorter while it was read (another program is writing \
             it); run the command again"
                .into(),
        );
        return (answer, false);
    }
    (answer, leave)
}
