//! Opening files for the parser child without reading them.
//!
//! The parent never reads a config or lock byte. It opens each file
//! (`O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY`, so a FIFO or a device cannot block
//! or become our terminal), checks through the opened descriptor that it is a regular
//! file within its size cap, and hands the descriptor to the child. Discovered files
//! are opened with `openat2(RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH)` relative to their
//! base, so a symlink planted between the discovery probe and the open cannot widen
//! what is read.

use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path};

use nix::errno::Errno;
use nix::fcntl::{self, OFlag, OpenHow, ResolveFlag};
use nix::sys::stat::{self, Mode, SFlag};

/// What happened when a discovered candidate was opened.
#[derive(Debug)]
pub enum Discovered {
    /// Ready to hand to the child; `size` from `fstat` on the descriptor.
    Opened { fd: OwnedFd, size: u64 },
    /// Not there, or not a regular file: ignored silently (the common case).
    Absent,
    /// A symlink at some component below the base: never read.
    Symlink,
    /// Larger than the cap: never read.
    TooLarge { size: u64 },
    /// Exists but could not be opened or examined.
    Failed(String),
}

const READ_FLAGS: OFlag = OFlag::O_RDONLY
    .union(OFlag::O_NONBLOCK)
    .union(OFlag::O_CLOEXEC)
    .union(OFlag::O_NOCTTY);

/// Open `path` (which lies below `base`) with no symlink at any component below
/// `base`, a regular file of at most `cap` bytes.
pub fn open_discovered(base: &Path, path: &Path, cap: u64) -> Discovered {
    // Metadata probe through symlinks first: a missing file, a dangling link or a
    // directory is not a config and is ignored without a word (as clients do).
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {}
        _ => return Discovered::Absent,
    }
    let Ok(rel) = path.strip_prefix(base) else {
        return Discovered::Failed("path is not below its base directory".into());
    };
    if super::discover::symlink_below(base, path).is_some() {
        return Discovered::Symlink;
    }
    let base_fd = match fcntl::open(
        base,
        OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(e) => return Discovered::Failed(e.desc().to_string()),
    };
    let opened = match open_beneath(&base_fd, rel) {
        Ok(fd) => fd,
        // A symlink appeared after the probe: the open refused to follow it.
        Err(Errno::ELOOP) | Err(Errno::EXDEV) => return Discovered::Symlink,
        Err(Errno::ENOENT) | Err(Errno::ENOTDIR) => return Discovered::Absent,
        Err(e) => return Discovered::Failed(e.desc().to_string()),
    };
    match regular_size(&opened) {
        Ok(Some(size)) if size > cap => Discovered::TooLarge { size },
        Ok(Some(size)) => Discovered::Opened { fd: opened, size },
        Ok(None) => Discovered::Absent,
        Err(e) => Discovered::Failed(e),
    }
}

/// Open a file the user named with `--config`: trusted as given (a symlink is
/// followed), but it must be a regular file.
pub fn open_explicit(path: &Path) -> Result<OwnedFd, String> {
    let fd = fcntl::open(path, READ_FLAGS, Mode::empty()).map_err(|e| e.desc().to_string())?;
    match regular_size(&fd)? {
        Some(_) => Ok(fd),
        None => Err("not a regular file".into()),
    }
}

/// `openat2(dir, rel, RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH)`; on kernels without
/// openat2 (before 5.6), the same guarantee one component at a time with
/// `O_NOFOLLOW`.
pub fn open_beneath(dir: &impl AsFd, rel: &Path) -> Result<OwnedFd, Errno> {
    let how = OpenHow::new()
        .flags(READ_FLAGS)
        .resolve(ResolveFlag::RESOLVE_NO_SYMLINKS | ResolveFlag::RESOLVE_BENEATH);
    match fcntl::openat2(dir.as_fd(), rel, how) {
        Err(Errno::ENOSYS) => open_beneath_by_components(dir, rel),
        other => other,
    }
}

fn open_beneath_by_components(dir: &impl AsFd, rel: &Path) -> Result<OwnedFd, Errno> {
    let names: Vec<_> = rel
        .components()
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            _ => Err(Errno::EXDEV),
        })
        .collect::<Result<_, _>>()?;
    let Some((last, dirs)) = names.split_last() else {
        return Err(Errno::ENOENT);
    };
    let mut current: Option<OwnedFd> = None;
    for name in dirs {
        let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let next = match &current {
            Some(fd) => fcntl::openat(fd, *name, flags, Mode::empty())?,
            None => fcntl::openat(dir.as_fd(), *name, flags, Mode::empty())?,
        };
        current = Some(next);
    }
    let flags = READ_FLAGS | OFlag::O_NOFOLLOW;
    match &current {
        Some(fd) => fcntl::openat(fd, *last, flags, Mode::empty()),
        None => fcntl::openat(dir.as_fd(), *last, flags, Mode::empty()),
    }
}

/// `Some(size)` for a regular file, `None` for anything else, from the open descriptor.
pub fn regular_size(fd: &OwnedFd) -> Result<Option<u64>, String> {
    let st = stat::fstat(fd).map_err(|e| e.desc().to_string())?;
    let kind = SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT;
    if kind == SFlag::S_IFREG {
        Ok(Some(u64::try_from(st.st_size).unwrap_or(0)))
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn symlinks_below_base_are_refused_at_every_component() {
        let t = tempfile::tempdir().expect("tempdir");
        let base = t.path().join("home");
        fs::create_dir_all(base.join("real")).expect("mkdir");
        fs::write(base.join("real/mcp.json"), "{}").expect("write");
        std::os::unix::fs::symlink(base.join("real"), base.join("link")).expect("symlink");
        std::os::unix::fs::symlink(base.join("real/mcp.json"), base.join("file-link.json"))
            .expect("symlink");

        assert!(matches!(
            open_discovered(&base, &base.join("real/mcp.json"), 10),
            Discovered::Opened { size: 2, .. }
        ));
        assert!(matches!(
            open_discovered(&base, &base.join("link/mcp.json"), 10),
            Discovered::Symlink
        ));
        assert!(matches!(
            open_discovered(&base, &base.join("file-link.json"), 10),
            Discovered::Symlink
        ));
        assert!(matches!(
            open_discovered(&base, &base.join("real/mcp.json"), 1),
            Discovered::TooLarge { size: 2 }
        ));
        assert!(matches!(
            open_discovered(&base, &base.join("none.json"), 10),
            Discovered::Absent
        ));
        assert!(matches!(
            open_discovered(&base, &base.join("real"), 10),
            Discovered::Absent
        ));
        // The race-free open alone refuses the symlinked component too.
        let dir = fcntl::open(&base, OFlag::O_PATH | OFlag::O_DIRECTORY, Mode::empty())
            .expect("open base");
        assert_eq!(
            open_beneath(&dir, Path::new("link/mcp.json")).err(),
            Some(Errno::ELOOP)
        );
        assert!(open_beneath_by_components(&dir, Path::new("link/mcp.json")).is_err());
        assert!(open_beneath_by_components(&dir, Path::new("file-link.json")).is_err());
        assert!(open_beneath_by_components(&dir, Path::new("real/mcp.json")).is_ok());
    }

    #[test]
    fn explicit_paths_follow_symlinks_but_must_be_regular_files() {
        let t = tempfile::tempdir().expect("tempdir");
        fs::write(t.path().join("a.json"), "{}").expect("write");
        std::os::unix::fs::symlink(t.path().join("a.json"), t.path().join("l.json"))
            .expect("symlink");
        assert!(open_explicit(&t.path().join("l.json")).is_ok());
        assert!(open_explicit(t.path()).is_err());
        assert!(open_explicit(&t.path().join("missing.json")).is_err());
    }
}
