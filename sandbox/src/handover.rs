//! The handed files travel to the child over its request socket (`SCM_RIGHTS`), not
//! through `execve`.
//!
//! Why: the parent can start the child before it knows which files there are. The
//! child's `execve`, its start-up (relocation, the C library's CPU detection, the Rust
//! runtime) and the parent's discovery then run at the same time, on two cores,
//! instead of one after the other (about 0.7 ms of the 4.5 ms realistic benchmark home).
//!
//! The child receives them confined: every layer, seccomp included, is in place
//! before the first handed descriptor exists in the process (`child.rs`), so the
//! confinement runs while the parent is still discovering, and this module's checks
//! run under the filter (`recvmsg` on descriptor 3 only, with `MSG_CMSG_CLOEXEC`).
//! The files still sit at 5, 6, … without gaps, so every later check (the descriptor
//! count, the seccomp rules that name descriptors) sees what it saw when they came
//! through `execve`. The parent still only opens.
//!
//! Wire: one or more messages, each an 8-byte header — the total number of files and
//! the number this message carries, both `u32` little-endian — with that many
//! descriptors attached, at most [`FILES_PER_MESSAGE`]; a home without files sends one
//! header with no descriptor. The child refuses anything else: a header whose total
//! changes, more descriptors than announced, a truncated control message, a
//! descriptor that did not land on the next number, the socket closing early.

use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use nix::sys::socket::{recvmsg, sendmsg, ControlMessage, ControlMessageOwned, MsgFlags};

use crate::sys::FIRST_FILE_FD;

/// Most descriptors one message carries: the kernel takes at most 253 (`SCM_MAX_FD`).
const FILES_PER_MESSAGE: usize = 250;

const HEADER_BYTES: usize = 8;

fn header(total: u32, carried: usize) -> io::Result<[u8; HEADER_BYTES]> {
    let carried = u32::try_from(carried).map_err(|_| io::Error::other("batch too large"))?;
    let mut bytes = [0u8; HEADER_BYTES];
    bytes[..4].copy_from_slice(&total.to_le_bytes());
    bytes[4..].copy_from_slice(&carried.to_le_bytes());
    Ok(bytes)
}

/// Parent: hands `files` to the child over `socket` (the parent's end of the request
/// socket), in order.
pub(crate) fn send_files(socket: &OwnedFd, files: &[OwnedFd]) -> io::Result<()> {
    let total = u32::try_from(files.len()).map_err(|_| io::Error::other("too many files"))?;
    let raw: Vec<RawFd> = files.iter().map(AsRawFd::as_raw_fd).collect();
    let mut batches: Vec<&[RawFd]> = raw.chunks(FILES_PER_MESSAGE).collect();
    if batches.is_empty() {
        batches.push(&[]);
    }
    for batch in batches {
        let bytes = header(total, batch.len())?;
        let iov = [IoSlice::new(&bytes)];
        let rights = [ControlMessage::ScmRights(batch)];
        let cmsgs: &[ControlMessage<'_>] = if batch.is_empty() { &[] } else { &rights };
        let sent = sendmsg::<()>(
            socket.as_raw_fd(),
            &iov,
            cmsgs,
            MsgFlags::MSG_NOSIGNAL,
            None,
        )?;
        if sent != HEADER_BYTES {
            return Err(io::Error::other("short write of a descriptor handover"));
        }
    }
    Ok(())
}

/// Child: receives the handed files on `socket` (the request socket, descriptor 3),
/// at most `max` of them, and returns how many arrived. They land on the lowest free
/// numbers, 5, 6, … (the caller closed everything from 5 up first); any other number
/// is refused.
pub(crate) fn receive_files(socket: RawFd, max: usize) -> io::Result<usize> {
    let received = receive(socket, max)?;
    for (expected, &fd) in (FIRST_FILE_FD..).zip(&received) {
        if fd != expected {
            return Err(io::Error::other(format!(
                "handed file landed on descriptor {fd}, not {expected}"
            )));
        }
    }
    Ok(received.len())
}

/// The descriptors of a whole handover, in order, as they arrived.
fn receive(socket: RawFd, max: usize) -> io::Result<Vec<RawFd>> {
    let mut received: Vec<RawFd> = Vec::new();
    let mut total: Option<usize> = None;
    let mut announced = 0usize;
    loop {
        let mut bytes = [0u8; HEADER_BYTES];
        let mut have = 0;
        while have < HEADER_BYTES {
            let mut space = nix::cmsg_space!([RawFd; FILES_PER_MESSAGE]);
            let mut iov = [IoSliceMut::new(&mut bytes[have..])];
            let msg = recvmsg::<()>(
                socket,
                &mut iov,
                Some(&mut space),
                MsgFlags::MSG_CMSG_CLOEXEC,
            )?;
            if msg.flags.contains(MsgFlags::MSG_CTRUNC) {
                return Err(io::Error::other("descriptor handover truncated"));
            }
            for cmsg in msg.cmsgs()? {
                match cmsg {
                    ControlMessageOwned::ScmRights(fds) => received.extend(fds),
                    _ => return Err(io::Error::other("unexpected control message")),
                }
            }
            if msg.bytes == 0 {
                return Err(io::Error::other("request socket closed during handover"));
            }
            have += msg.bytes;
        }
        let word = |at: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(&bytes[at..at + 4]);
            usize::try_from(u32::from_le_bytes(w)).unwrap_or(usize::MAX)
        };
        let (this_total, carried) = (word(0), word(4));
        if this_total > max {
            return Err(io::Error::other(format!(
                "{this_total} files handed over, at most {max} allowed"
            )));
        }
        if *total.get_or_insert(this_total) != this_total {
            return Err(io::Error::other("handover total changed"));
        }
        if carried == 0 && this_total > 0 {
            return Err(io::Error::other("empty handover message"));
        }
        announced = announced.saturating_add(carried);
        if announced > this_total || received.len() != announced {
            return Err(io::Error::other(format!(
                "handover announced {announced} of {this_total} descriptors, {} arrived",
                received.len()
            )));
        }
        if announced == this_total {
            return Ok(received);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)] // a panic is the test failure report
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::{AsFd, FromRawFd};
    use std::os::unix::fs::MetadataExt;

    use nix::sys::socket::{socketpair, AddressFamily, SockFlag, SockType};

    fn pair() -> (OwnedFd, OwnedFd) {
        socketpair(
            AddressFamily::Unix,
            SockType::Stream,
            None,
            SockFlag::SOCK_CLOEXEC,
        )
        .expect("socketpair")
    }

    fn owned(fds: Vec<RawFd>) -> Vec<OwnedFd> {
        fds.into_iter()
            .map(|fd| {
                // SAFETY: each descriptor was just received and belongs to nothing else.
                unsafe { OwnedFd::from_raw_fd(fd) }
            })
            .collect()
    }

    fn inode(fd: impl AsFd) -> u64 {
        std::fs::File::from(fd.as_fd().try_clone_to_owned().expect("dup"))
            .metadata()
            .expect("fstat")
            .ino()
    }

    /// Files of every count that takes one, several and a partial last message
    /// arrive whole and in order.
    #[test]
    fn every_file_arrives_in_order_across_messages() {
        let dir = tempfile::tempdir().expect("tempdir");
        for count in [
            0,
            1,
            FILES_PER_MESSAGE,
            FILES_PER_MESSAGE + 1,
            2 * FILES_PER_MESSAGE + 7,
        ] {
            let files: Vec<OwnedFd> = (0..count)
                .map(|i| {
                    let path = dir.path().join(format!("{count}-{i}"));
                    std::fs::write(&path, b"x").expect("write");
                    std::fs::File::open(path).expect("open").into()
                })
                .collect();
            let (parent, child) = pair();
            let sender = std::thread::spawn(move || send_files(&parent, &files).map(|()| files));
            let got = owned(receive(child.as_raw_fd(), 4096).expect("receive"));
            let files = sender.join().expect("join").expect("send");
            assert_eq!(got.len(), count);
            for (sent, received) in files.iter().zip(&got) {
                assert_eq!(inode(sent), inode(received));
            }
        }
    }

    /// Raw headers with or without descriptors, for the refusals below.
    fn send_raw(socket: &OwnedFd, total: u32, carried: u32, fds: &[RawFd]) {
        let mut bytes = [0u8; HEADER_BYTES];
        bytes[..4].copy_from_slice(&total.to_le_bytes());
        bytes[4..].copy_from_slice(&carried.to_le_bytes());
        let iov = [IoSlice::new(&bytes)];
        let rights = [ControlMessage::ScmRights(fds)];
        let cmsgs: &[ControlMessage<'_>] = if fds.is_empty() { &[] } else { &rights };
        sendmsg::<()>(socket.as_raw_fd(), &iov, cmsgs, MsgFlags::empty(), None).expect("send");
    }

    #[test]
    fn a_handover_that_breaks_its_own_header_is_refused() {
        let file = std::fs::File::open("/dev/null").expect("open");
        let fd = file.as_raw_fd();
        let refused = |send: &dyn Fn(&OwnedFd)| {
            let (parent, child) = pair();
            send(&parent);
            drop(parent);
            receive(child.as_raw_fd(), 8).map(owned)
        };
        // More descriptors than the header says.
        assert!(refused(&|s| send_raw(s, 2, 1, &[fd, fd])).is_err());
        // Fewer.
        assert!(refused(&|s| send_raw(s, 2, 2, &[fd])).is_err());
        // A total beyond the bound.
        assert!(refused(&|s| send_raw(s, 9, 1, &[fd])).is_err());
        // A total that changes between messages.
        assert!(refused(&|s| {
            send_raw(s, 2, 1, &[fd]);
            send_raw(s, 3, 1, &[fd]);
        })
        .is_err());
        // A message that carries nothing while files are still due.
        assert!(refused(&|s| send_raw(s, 1, 0, &[])).is_err());
        // The socket closing before the last file.
        assert!(refused(&|s| send_raw(s, 2, 1, &[fd])).is_err());
        // A bare partial header, then the end.
        assert!(refused(&|s| {
            let mut w = std::fs::File::from(s.try_clone().expect("dup"));
            w.write_all(&[1, 0, 0]).expect("write");
        })
        .is_err());
        // And the well-formed one beside them.
        assert_eq!(
            refused(&|s| send_raw(s, 1, 1, &[fd]))
                .expect("accepted")
                .len(),
            1
        );
    }
}
