//! The parser child's process entry: confined by the sandbox crate before it reads
//! anything, it answers each job of the parent's request in order.

use std::fs::File;

use mcp_warden_sandbox::{serve_child, Sender};

use super::{parse_file_in_child, read_capped};
use crate::protocol::{
    ChildMessage, FileFormat, FileJob, LoadError, LoadErrorKind, ParseRequest, PAYLOAD_VERSION,
};

/// Run as the parser child (`argv[1]` is the sandbox's child argument). Never returns.
pub fn serve() -> ! {
    serve_child(
        |request: ParseRequest, mut files: Vec<File>, sender: &mut Sender| {
            for job in &request.jobs {
                let answer = answer(&request, job, &mut files);
                sender.send(&answer)?;
                // Not freed record by record: the process exits after the last job
                // and its heap is bounded by the address-space limit (see
                // `TreeDisposal::LeaveToExit`).
                std::mem::forget(answer);
            }
            Ok(())
        },
    )
}

fn answer(request: &ParseRequest, job: &FileJob, files: &mut [File]) -> ChildMessage {
    let failed = |message: String| {
        let error = LoadError {
            kind: LoadErrorKind::Read,
            message,
        };
        match job.format {
            FileFormat::Lock => ChildMessage::Lock(Err(error)),
            _ => ChildMessage::Config(Err(error)),
        }
    };
    if request.payload_version != PAYLOAD_VERSION {
        return failed(format!(
            "parser protocol version {} is not {PAYLOAD_VERSION}",
            request.payload_version
        ));
    }
    let Some(file) = usize::try_from(job.fd_index)
        .ok()
        .and_then(|i| files.get_mut(i))
    else {
        return failed("no descriptor was handed over for this file".into());
    };
    // fstat on the descriptor: the child's filter refuses statx (File::metadata).
    let size_hint = mcp_warden_sandbox::file_size(file).ok();
    match read_capped(file, job.size_cap, size_hint) {
        Ok(bytes) => parse_file_in_child(job.format, &bytes),
        Err(error) => match job.format {
            FileFormat::Lock => ChildMessage::Lock(Err(error)),
            _ => ChildMessage::Config(Err(error)),
        },
    }
}
