//! What a directory entry is, as `lstat`/`fstat` report it, in the words the
//! warnings and errors use.
//!
//! Every place that must refuse something other than a regular file (a discovered
//! config, a lock in the tree, a `--config` path, a file mcp-warden writes) names
//! the kind through this type, so a FIFO is "a FIFO" in every message and no
//! caller matches on raw mode bits.

use std::fmt;

/// The type of one filesystem object, never following a symlink unless the caller
/// did (`stat` rather than `lstat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Regular,
    Directory,
    Symlink,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    /// A type this platform reports that none of the above names.
    Other,
}

impl FileKind {
    /// From `st_mode` (the `S_IFMT` bits decide).
    pub fn from_mode(mode: u32) -> FileKind {
        use nix::sys::stat::SFlag;
        let kind = SFlag::from_bits_truncate(mode) & SFlag::S_IFMT;
        match kind {
            k if k == SFlag::S_IFREG => FileKind::Regular,
            k if k == SFlag::S_IFDIR => FileKind::Directory,
            k if k == SFlag::S_IFLNK => FileKind::Symlink,
            k if k == SFlag::S_IFIFO => FileKind::Fifo,
            k if k == SFlag::S_IFSOCK => FileKind::Socket,
            k if k == SFlag::S_IFCHR => FileKind::CharDevice,
            k if k == SFlag::S_IFBLK => FileKind::BlockDevice,
            _ => FileKind::Other,
        }
    }

    /// From a [`std::fs::FileType`] (as `symlink_metadata` or `DirEntry::file_type`
    /// report it, without following a link).
    pub fn of(file_type: std::fs::FileType) -> FileKind {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_symlink() {
            FileKind::Symlink
        } else if file_type.is_file() {
            FileKind::Regular
        } else if file_type.is_dir() {
            FileKind::Directory
        } else if file_type.is_fifo() {
            FileKind::Fifo
        } else if file_type.is_socket() {
            FileKind::Socket
        } else if file_type.is_char_device() {
            FileKind::CharDevice
        } else if file_type.is_block_device() {
            FileKind::BlockDevice
        } else {
            FileKind::Other
        }
    }
}

impl fmt::Display for FileKind {
    /// With its article, for "… is a FIFO, not a regular file".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Regular => "a regular file",
            FileKind::Directory => "a directory",
            FileKind::Symlink => "a symlink",
            FileKind::Fifo => "a FIFO",
            FileKind::Socket => "a socket",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Other => "a special file",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_lstat_and_from_the_mode_agree() {
        let t = tempfile::tempdir().expect("tempdir");
        let file = t.path().join("f");
        std::fs::write(&file, "x").expect("write");
        let fifo = t.path().join("p");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
        let link = t.path().join("l");
        std::os::unix::fs::symlink("nowhere", &link).expect("symlink");
        for (path, kind) in [
            (file.as_path(), FileKind::Regular),
            (t.path(), FileKind::Directory),
            (fifo.as_path(), FileKind::Fifo),
            (link.as_path(), FileKind::Symlink),
            (std::path::Path::new("/dev/null"), FileKind::CharDevice),
        ] {
            let meta = std::fs::symlink_metadata(path).expect("lstat");
            assert_eq!(FileKind::of(meta.file_type()), kind, "{path:?}");
            let st = nix::sys::stat::lstat(path).expect("lstat");
            assert_eq!(FileKind::from_mode(st.st_mode), kind, "{path:?}");
        }
        assert_eq!(FileKind::Fifo.to_string(), "a FIFO");
    }
}
