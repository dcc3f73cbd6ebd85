//! Every file mcp-warden writes goes through here: the SARIF logs of `doctor`,
//! `auth audit`, `pin` and `check`, the lock `pin` writes, the locks `doctor --pin`
//! creates and the lock `lock rotate` rewrites.
//!
//! The rules, for a path the user gave (or the lock name doctor chose):
//!
//! * The final component is never followed: a symlink there is refused (a
//!   repository shipping `doctor.sarif -> ~/.bashrc` cannot make a write land in
//!   `~/.bashrc`, and a dangling one cannot create its target). Anything there that
//!   is not a regular file (a directory, a FIFO, a socket, a device) is refused
//!   without being opened, so a FIFO can never block the write.
//! * A relative path is resolved from the working directory one directory at a
//!   time with `O_NOFOLLOW`: a symlinked directory on it (`out -> ~/.ssh` planted by
//!   a repository, for `--sarif out/doctor.sarif`) is refused. The directories of an
//!   absolute path are the user's own choice and are followed (`/tmp` is a symlink
//!   on some systems); its final component is still never followed.
//! * The bytes go to a new temporary file in the target's directory (`O_CREAT |
//!   O_EXCL | O_NOFOLLOW`, mode 0644 before the umask, or the replaced file's mode
//!   without world write), are synced, and then the temporary file is renamed over
//!   the target, so a reader sees the old file or the new one, never a torn write.
//!   The temporary file is removed on every failure. [`create_new`] links it into
//!   place instead, which fails when anything appeared at the path meanwhile.
//! * Every step works on descriptors of the target's directory (`openat`,
//!   `fstatat`, `renameat`), so a directory swapped for a symlink after the checks
//!   cannot redirect the write.
//!
//! `-` is not a path here: commands that accept it ([`Destination`]) write to
//! stdout themselves.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use nix::errno::Errno;
use nix::fcntl::{self, AtFlags, OFlag};
use nix::sys::stat::{self, Mode};
use nix::unistd::{self, UnlinkatFlags};

use crate::file_kind::FileKind;

/// Where an output such as `--sarif` goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// `-`: standard output.
    Stdout,
    /// A file, written with [`replace`].
    File(PathBuf),
}

impl Destination {
    /// `-` is standard output; anything else is a path.
    pub fn from_arg(arg: &Path) -> Destination {
        if arg.as_os_str() == "-" {
            Destination::Stdout
        } else {
            Destination::File(arg.to_path_buf())
        }
    }
}

/// Why a file was not written. Each displays as one line naming the path.
#[derive(Debug)]
pub enum WriteError {
    /// [`create_new`] found something at the path already.
    Exists(PathBuf),
    /// The path itself is a symlink; it is never written through.
    Symlink(PathBuf),
    /// A directory on the (relative) path is a symlink.
    SymlinkedDirectory { path: PathBuf, directory: PathBuf },
    /// Something other than a regular file is at the path.
    NotRegular(PathBuf, FileKind),
    /// The path names no file (`""`, `.`, `..`, `dir/`).
    NoFileName(PathBuf),
    /// The operation failed; `doing` says which step.
    Io {
        path: PathBuf,
        doing: &'static str,
        error: io::Error,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Exists(p) => {
                write!(f, "{} already exists; refusing to replace it", p.display())
            }
            WriteError::Symlink(p) => write!(
                f,
                "{} is a symlink; refusing to write through it",
                p.display()
            ),
            WriteError::SymlinkedDirectory { path, directory } => write!(
                f,
                "{}: directory {} is a symlink; refusing to write through it",
                path.display(),
                directory.display()
            ),
            WriteError::NotRegular(p, kind) => write!(
                f,
                "{} is {kind}, not a regular file; refusing to write to it",
                p.display()
            ),
            WriteError::NoFileName(p) => {
                write!(f, "{:?} does not name a file", p.display().to_string())
            }
            WriteError::Io { path, doing, error } => {
                write!(f, "{}: {doing}: {}", path.display(), io_reason(error))
            }
        }
    }
}

impl std::error::Error for WriteError {}

/// A readable reason without the `(os error N)` tail.
fn io_reason(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => Errno::from_raw(code).desc().to_lowercase(),
        None => e.to_string(),
    }
}

/// Check, without writing anything, that [`replace`] could write `path` as things
/// stand: its directory can be reached (no symlinked directory on a relative
/// path) and nothing but a regular file is there. For commands that should refuse
/// a bad output path before spending time (capturing a server, scanning a home);
/// the write itself checks again.
pub fn preflight(path: &Path) -> Result<(), WriteError> {
    Target::open(path)?.existing().map(|_| ())
}

/// Replace (or create) the regular file at `path` with `bytes`, atomically.
pub fn replace(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let target = Target::open(path)?;
    let mode = match target.existing()? {
        Existing::Nothing => None,
        Existing::Regular { mode } => Some(mode),
    };
    let temp = target.write_temporary(bytes, mode)?;
    fcntl::renameat(
        &target.dir,
        temp.name.as_os_str(),
        &target.dir,
        &*target.name,
    )
    .map_err(|e| target.io("renaming the temporary file into place", e))?;
    temp.keep();
    Ok(())
}

/// Create `path` with `bytes`; fail with [`WriteError::Exists`] if anything is
/// there already (a file, a symlink, even a dangling one), now or by the time the
/// file is linked into place. Readers never see a partial file.
pub fn create_new(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let target = Target::open(path)?;
    if let Existing::Regular { .. } = target.existing()? {
        return Err(WriteError::Exists(path.to_path_buf()));
    }
    let temp = target.write_temporary(bytes, None)?;
    match unistd::linkat(
        &target.dir,
        temp.name.as_os_str(),
        &target.dir,
        &*target.name,
        AtFlags::empty(),
    ) {
        Ok(()) => Ok(()), // `temp` is dropped: its name is unlinked, the file stays
        Err(Errno::EEXIST) => Err(WriteError::Exists(path.to_path_buf())),
        // No hard links on this filesystem (vfat, some FUSE mounts): create the
        // target itself exclusively; a failed write removes it again.
        Err(Errno::EPERM | Errno::EOPNOTSUPP | Errno::EMLINK | Errno::ENOSYS) => {
            drop(temp);
            target.write_exclusive_in_place(bytes)
        }
        Err(e) => Err(target.io("linking the new file into place", e)),
    }
}

/// What is at the target path now.
enum Existing {
    Nothing,
    Regular { mode: Mode },
}

/// The target's directory (a descriptor) and its file name.
struct Target {
    path: PathBuf,
    dir: OwnedFd,
    name: OsString,
}

const DIR_FLAGS: OFlag = OFlag::O_PATH
    .union(OFlag::O_DIRECTORY)
    .union(OFlag::O_CLOEXEC);

impl Target {
    fn open(path: &Path) -> Result<Target, WriteError> {
        let no_name = || WriteError::NoFileName(path.to_path_buf());
        let raw = path.as_os_str().as_bytes();
        if raw.is_empty() || raw.ends_with(b"/") {
            return Err(no_name());
        }
        let name = match path.components().next_back() {
            Some(Component::Normal(name)) => name.to_os_string(),
            _ => return Err(no_name()),
        };
        let parent = path.parent().unwrap_or(Path::new(""));
        let dir = if path.is_absolute() {
            fcntl::open(parent, DIR_FLAGS, Mode::empty())
                .map_err(|e| Self::io_at(path, "opening its directory", e))?
        } else {
            Self::walk_relative(path, parent)?
        };
        Ok(Target {
            path: path.to_path_buf(),
            dir,
            name,
        })
    }

    /// The directory of a relative path, reached from the working directory one
    /// component at a time, never through a symlink.
    fn walk_relative(path: &Path, parent: &Path) -> Result<OwnedFd, WriteError> {
        let mut dir = fcntl::open(".", DIR_FLAGS, Mode::empty())
            .map_err(|e| Self::io_at(path, "opening the current directory", e))?;
        let mut walked = PathBuf::new();
        for component in parent.components() {
            let name: &OsStr = match component {
                Component::CurDir => continue,
                Component::ParentDir => OsStr::new(".."),
                Component::Normal(name) => name,
                // Only an absolute path has a root; it never gets here.
                Component::RootDir | Component::Prefix(_) => {
                    return Err(WriteError::NoFileName(path.to_path_buf()))
                }
            };
            walked.push(name);
            dir = match fcntl::openat(&dir, name, DIR_FLAGS | OFlag::O_NOFOLLOW, Mode::empty()) {
                Ok(next) => next,
                Err(e) => {
                    let symlink = stat::fstatat(&dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)
                        .is_ok_and(|st| FileKind::from_mode(st.st_mode) == FileKind::Symlink);
                    return Err(if symlink {
                        WriteError::SymlinkedDirectory {
                            path: path.to_path_buf(),
                            directory: walked,
                        }
                    } else {
                        Self::io_at(path, "opening its directory", e)
                    });
                }
            };
        }
        Ok(dir)
    }

    fn existing(&self) -> Result<Existing, WriteError> {
        match stat::fstatat(&self.dir, &*self.name, AtFlags::AT_SYMLINK_NOFOLLOW) {
            Ok(st) => match FileKind::from_mode(st.st_mode) {
                FileKind::Regular => Ok(Existing::Regular {
                    mode: Mode::from_bits_truncate(st.st_mode),
                }),
                FileKind::Symlink => Err(WriteError::Symlink(self.path.clone())),
                kind => Err(WriteError::NotRegular(self.path.clone(), kind)),
            },
            Err(Errno::ENOENT) => Ok(Existing::Nothing),
            Err(e) => Err(self.io("examining it", e)),
        }
    }

    /// A new temporary file in the target's directory holding `bytes`, synced.
    /// `mode`: the permissions of the file being replaced (kept, minus world write,
    /// set-id and sticky bits); a new file gets 0644 less the umask.
    fn write_temporary(
        &self,
        bytes: &[u8],
        mode: Option<Mode>,
    ) -> Result<Temporary<'_>, WriteError> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let flags =
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let mut last = Errno::EEXIST;
        for _ in 0..16 {
            let name = OsString::from(format!(
                ".mcp-warden-{}-{}.tmp",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            let fd = match fcntl::openat(&self.dir, name.as_os_str(), flags, NEW_FILE_MODE) {
                Ok(fd) => fd,
                Err(Errno::EEXIST) => continue,
                Err(e) => {
                    last = e;
                    break;
                }
            };
            let temp = Temporary {
                dir: &self.dir,
                name,
                armed: true,
            };
            if let Some(mode) = mode {
                let kept = mode & KEPT_MODE_BITS;
                stat::fchmod(&fd, kept)
                    .map_err(|e| self.io("setting the permissions of the new file", e))?;
            }
            write_all(&fd, bytes).map_err(|e| self.io("writing", e))?;
            unistd::fsync(&fd).map_err(|e| self.io("syncing", e))?;
            return Ok(temp);
        }
        Err(self.io("creating a temporary file in its directory", last))
    }

    /// `create_new` where hard links are unavailable: `O_EXCL` at the target name.
    fn write_exclusive_in_place(&self, bytes: &[u8]) -> Result<(), WriteError> {
        let flags =
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let fd = match fcntl::openat(&self.dir, &*self.name, flags, NEW_FILE_MODE) {
            Ok(fd) => fd,
            Err(Errno::EEXIST) => return Err(WriteError::Exists(self.path.clone())),
            Err(e) => return Err(self.io("creating it", e)),
        };
        let written = write_all(&fd, bytes)
            .map_err(|e| self.io("writing", e))
            .and_then(|()| unistd::fsync(&fd).map_err(|e| self.io("syncing", e)));
        if written.is_err() {
            // Never leave a truncated file behind.
            let _ = unistd::unlinkat(&self.dir, &*self.name, UnlinkatFlags::NoRemoveDir);
        }
        written
    }

    fn io(&self, doing: &'static str, e: Errno) -> WriteError {
        Self::io_at(&self.path, doing, e)
    }

    fn io_at(path: &Path, doing: &'static str, e: Errno) -> WriteError {
        WriteError::Io {
            path: path.to_path_buf(),
            doing,
            error: io::Error::from(e),
        }
    }
}

/// New files: 0644 before the umask (never world-writable).
const NEW_FILE_MODE: Mode = Mode::S_IRUSR
    .union(Mode::S_IWUSR)
    .union(Mode::S_IRGRP)
    .union(Mode::S_IROTH);

/// What a replacement keeps of the replaced file's mode: read, write and execute
/// for owner and group, read and execute for others; never world write, set-id or
/// sticky bits.
const KEPT_MODE_BITS: Mode = Mode::S_IRWXU
    .union(Mode::S_IRWXG)
    .union(Mode::S_IROTH)
    .union(Mode::S_IXOTH);

fn write_all(fd: &OwnedFd, mut bytes: &[u8]) -> Result<(), Errno> {
    while !bytes.is_empty() {
        match unistd::write(fd, bytes) {
            Ok(0) => return Err(Errno::EIO),
            Ok(n) => bytes = bytes.get(n..).unwrap_or_default(),
            Err(Errno::EINTR) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A temporary file's name in the target directory, unlinked when dropped unless
/// [`Temporary::keep`] says it has been renamed into place.
struct Temporary<'a> {
    dir: &'a OwnedFd,
    name: OsString,
    armed: bool,
}

impl Temporary<'_> {
    fn keep(mut self) {
        self.armed = false;
    }
}

impl Drop for Temporary<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = unistd::unlinkat(self.dir, self.name.as_os_str(), UnlinkatFlags::NoRemoveDir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .expect("list")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".mcp-warden-"))
            .collect()
    }

    #[test]
    fn replaces_regular_files_and_creates_new_ones() {
        let t = tempfile::tempdir().expect("tempdir");
        let path = t.path().join("out.sarif");
        replace(&path, b"one").expect("create");
        assert_eq!(std::fs::read(&path).expect("read"), b"one");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o606)).expect("chmod");
        replace(&path, b"two").expect("replace");
        assert_eq!(std::fs::read(&path).expect("read"), b"two");
        let mode = std::fs::metadata(&path).expect("stat").permissions().mode() & 0o7777;
        assert_eq!(mode, 0o604, "kept without world write");
        assert!(leftovers(t.path()).is_empty());
    }

    #[test]
    fn never_writes_through_links_or_onto_special_files() {
        let t = tempfile::tempdir().expect("tempdir");
        let victim = t.path().join("bashrc");
        std::fs::write(&victim, "mine").expect("write");
        let link = t.path().join("doctor.sarif");
        std::os::unix::fs::symlink(&victim, &link).expect("symlink");
        assert!(matches!(replace(&link, b"x"), Err(WriteError::Symlink(_))));
        assert!(matches!(
            create_new(&link, b"x"),
            Err(WriteError::Symlink(_))
        ));
        assert_eq!(std::fs::read(&victim).expect("read"), b"mine");

        let dangling = t.path().join("d.sarif");
        std::os::unix::fs::symlink(t.path().join("created"), &dangling).expect("symlink");
        assert!(matches!(
            replace(&dangling, b"x"),
            Err(WriteError::Symlink(_))
        ));
        assert!(!t.path().join("created").exists());

        let fifo = t.path().join("p.sarif");
        nix::unistd::mkfifo(&fifo, Mode::S_IRWXU).expect("mkfifo");
        assert!(matches!(
            replace(&fifo, b"x"),
            Err(WriteError::NotRegular(_, FileKind::Fifo))
        ));
        assert!(matches!(
            replace(t.path(), b"x"),
            Err(WriteError::NoFileName(_)) | Err(WriteError::NotRegular(_, FileKind::Directory))
        ));
        let sub = t.path().join("sub");
        std::fs::create_dir(&sub).expect("mkdir");
        assert!(matches!(
            replace(&sub, b"x"),
            Err(WriteError::NotRegular(_, FileKind::Directory))
        ));
        for p in ["", ".", "..", "dir/"] {
            assert!(
                matches!(replace(Path::new(p), b"x"), Err(WriteError::NoFileName(_))),
                "{p:?}"
            );
        }
        assert!(leftovers(t.path()).is_empty());
    }

    #[test]
    fn create_new_refuses_anything_already_there() {
        let t = tempfile::tempdir().expect("tempdir");
        let path = t.path().join("x.warden.lock");
        create_new(&path, b"lock").expect("create");
        assert!(matches!(
            create_new(&path, b"again"),
            Err(WriteError::Exists(_))
        ));
        assert_eq!(std::fs::read(&path).expect("read"), b"lock");
        assert!(leftovers(t.path()).is_empty());
    }

    #[test]
    fn errors_are_one_line_naming_the_path() {
        let t = tempfile::tempdir().expect("tempdir");
        let path = t.path().join("missing-dir/out.sarif");
        let e = replace(&path, b"x").expect_err("no such directory");
        let text = e.to_string();
        assert!(text.contains("missing-dir/out.sarif"), "{text}");
        assert!(!text.contains('\n') && !text.contains("os error"), "{text}");
    }

    #[test]
    fn stdout_is_spelled_dash() {
        assert_eq!(Destination::from_arg(Path::new("-")), Destination::Stdout);
        assert_eq!(
            Destination::from_arg(Path::new("./-")),
            Destination::File(PathBuf::from("./-"))
        );
    }
}
