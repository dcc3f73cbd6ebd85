//! `memcpy`, `memmove` and `memset` for the release build, which links musl
//! (`docs/install.md`, "Why musl").
//!
//! # Why
//!
//! musl's `memcpy` copies every length with `rep movsq` and its tail a byte at a
//! time. Starting a string instruction costs tens of cycles, and Rust copies short
//! blocks all the time (moving values, extending buffers, decoding strings): on the
//! 8 MiB `~/.claude.json` (20,000 servers) musl's `memcpy` was 11.7 % of both
//! processes' samples, and the run took 4 % more wall time than the static glibc
//! build (3 to 8 % more CPU time in two rounds). With these routines the musl build
//! is within 1.5 % (text) and 3 % (`--json`) of glibc's there (`docs/performance.md`,
//! "musl"), and keeps what musl was chosen for: a process start without glibc's
//! CPUID probing, which costs a virtual machine about 0.3 ms per process, and about
//! 1 MiB less resident memory per process.
//!
//! * Up to 64 bytes (`SHORT`): at most four loads from the two ends of the
//!   source, then as many stores; the two halves overlap as much as the length
//!   requires, so there is no loop and no byte-by-byte tail. Every load comes
//!   before the first store, so overlapping ranges copy correctly.
//! * Up to 256 bytes (`MEDIUM`), copies only: the first and the last half (64 or
//!   128 bytes each) in 16-byte loads, then the stores. On the large home a
//!   quarter of a million copies are 129 to 256 bytes long, where starting
//!   `rep movsb` cost more than the copy.
//! * Longer: `rep movsb` / `rep stosb`, which CPUs with "enhanced rep movsb"
//!   (every x86-64 CPU since about 2013) run at full width once started. A
//!   `memmove` whose destination starts inside its source copies backwards
//!   (`std; rep movsb; cld`); that is slower, and rare.
//!
//! # Not calling themselves
//!
//! A compiler may turn a copying loop, or the copy of an aggregate, into a call to
//! `memcpy`; inside `memcpy` that call would recurse until the stack overflows.
//! So these routines use only scalar loads and stores of at most 16 bytes and
//! inline assembly: no loop, no array, no `ptr::copy`. (In a debug build the
//! loads and stores are calls to `read_unaligned` and `write_unaligned`, which
//! copy inline: the disassembly of a musl debug build shows no call back into
//! these routines.)
//!
//! # Where they apply
//!
//! Only a musl build on x86-64 exports them (`#[no_mangle]`), and the linker then
//! takes them instead of the C library's. The builds on the gnu target (tests,
//! `cargo install`) keep glibc's. The routines are plain functions on every x86-64
//! target, so the tests below hold them to byte-by-byte copies on every build.

use std::arch::asm;
use std::ptr::{read_unaligned, write_unaligned};

/// The longest copy or fill done with at most four loads and stores each way.
const SHORT: usize = 64;
/// The longest copy done with loads and stores; longer ones use `rep movsb`.
const MEDIUM: usize = 256;

/// Copies `len` bytes from `src` to `dst`; the two ranges may overlap (`memmove`).
///
/// # Safety
///
/// `src` must be valid for reads and `dst` for writes of `len` bytes (any
/// alignment).
#[inline(always)]
pub unsafe fn copy(dst: *mut u8, src: *const u8, len: usize) {
    if len <= SHORT {
        // SAFETY: the caller's contract, for `len <= SHORT`.
        unsafe { copy_short(dst, src, len) };
    } else if len <= MEDIUM {
        // SAFETY: the caller's contract, for `SHORT < len <= MEDIUM`.
        unsafe { copy_medium(dst, src, len) };
    } else if (dst as usize).wrapping_sub(src as usize) >= len {
        // `dst` does not start inside the source: a forward copy never overwrites
        // a byte it has still to read.
        // SAFETY: `rep movsb` reads `rcx` bytes upwards from `rsi` and writes them
        // upwards from `rdi`: the caller's ranges. It changes no flag and no stack.
        unsafe {
            asm!(
                "rep movsb",
                inout("rcx") len => _,
                inout("rdi") dst => _,
                inout("rsi") src => _,
                options(nostack, preserves_flags),
            );
        }
    } else {
        // `dst` starts inside the source: copy from the last byte down.
        // SAFETY: with the direction flag set, `rep movsb` reads `rcx` bytes
        // downwards from `rsi` and writes them downwards from `rdi`: from the last
        // byte of each range (`len > MEDIUM`, so `len - 1` is in range) to the
        // first. The flag is cleared again before the block ends, as the ABI
        // requires of every function return.
        unsafe {
            asm!(
                "std",
                "rep movsb",
                "cld",
                inout("rcx") len => _,
                inout("rdi") dst.add(len - 1) => _,
                inout("rsi") src.add(len - 1) => _,
                options(nostack),
            );
        }
    }
}

/// [`copy`] for `len <= SHORT`: every load before the first store.
///
/// # Safety
///
/// As [`copy`], and `len <= SHORT`.
#[inline(always)]
unsafe fn copy_short(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: each branch passes `copy_ends` a width `w` with `w <= len <= 2 * w`;
    // for 33..=64, the two middle blocks at 16 and `len - 32` lie within the range
    // too, and their loads come before every store.
    unsafe {
        if len > 32 {
            let b = read_unaligned(src.add(16).cast::<u128>());
            let c = read_unaligned(src.add(len - 32).cast::<u128>());
            copy_ends::<u128>(dst, src, len);
            write_unaligned(dst.add(16).cast::<u128>(), b);
            write_unaligned(dst.add(len - 32).cast::<u128>(), c);
        } else if len >= 16 {
            copy_ends::<u128>(dst, src, len);
        } else if len >= 8 {
            copy_ends::<u64>(dst, src, len);
        } else if len >= 4 {
            copy_ends::<u32>(dst, src, len);
        } else if len >= 2 {
            copy_ends::<u16>(dst, src, len);
        } else if len == 1 {
            dst.write(src.read());
        }
    }
}

/// Copies the first and the last `size_of::<W>()` bytes of `len`: both loads,
/// then both stores. Covers the whole range when `len <= 2 * size_of::<W>()`.
///
/// # Safety
///
/// As [`copy`], and `len >= size_of::<W>()`; `W` a plain integer type (every bit
/// pattern valid, a single load and store).
#[inline(always)]
unsafe fn copy_ends<W: Copy>(dst: *mut u8, src: *const u8, len: usize) {
    let last = len - std::mem::size_of::<W>();
    // SAFETY: both accesses are `size_of::<W>()` bytes at offset 0 or `last`, and
    // `last + size_of::<W>() == len`: within the caller's ranges.
    unsafe {
        let first_word = read_unaligned(src.cast::<W>());
        let last_word = read_unaligned(src.add(last).cast::<W>());
        write_unaligned(dst.cast::<W>(), first_word);
        write_unaligned(dst.add(last).cast::<W>(), last_word);
    }
}

/// [`copy`] for `SHORT < len <= MEDIUM`: 16-byte loads of the first and the last
/// half (64 or 128 bytes each, overlapping in the middle), every load before the
/// first store.
///
/// # Safety
///
/// As [`copy`], and `SHORT < len <= MEDIUM`.
#[inline(always)]
unsafe fn copy_medium(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: a half is 64 bytes for `len <= 128`, else 128, so a half never
    // exceeds `len`; the first half's loads and stores are at offsets below it, the
    // last half's at `len - half` and above, below `len`, and the two cover every
    // byte because `len <= 2 * half`.
    unsafe {
        let load = |at: usize| read_unaligned(src.add(at).cast::<u128>());
        let store = |at: usize, value: u128| write_unaligned(dst.add(at).cast::<u128>(), value);
        if len <= 128 {
            let tail = len - 64;
            let (a, b, c, d) = (load(0), load(16), load(32), load(48));
            let (e, f, g, h) = (
                load(tail),
                load(tail + 16),
                load(tail + 32),
                load(tail + 48),
            );
            store(0, a);
            store(16, b);
            store(32, c);
            store(48, d);
            store(tail, e);
            store(tail + 16, f);
            store(tail + 32, g);
            store(tail + 48, h);
        } else {
            let tail = len - 128;
            let (a, b, c, d) = (load(0), load(16), load(32), load(48));
            let (e, f, g, h) = (load(64), load(80), load(96), load(112));
            let (i, j, k, l) = (
                load(tail),
                load(tail + 16),
                load(tail + 32),
                load(tail + 48),
            );
            let (m, n, o, p) = (
                load(tail + 64),
                load(tail + 80),
                load(tail + 96),
                load(tail + 112),
            );
            store(0, a);
            store(16, b);
            store(32, c);
            store(48, d);
            store(64, e);
            store(80, f);
            store(96, g);
            store(112, h);
            store(tail, i);
            store(tail + 16, j);
            store(tail + 32, k);
            store(tail + 48, l);
            store(tail + 64, m);
            store(tail + 80, n);
            store(tail + 96, o);
            store(tail + 112, p);
        }
    }
}

/// Sets `len` bytes from `dst` to `byte` (`memset`).
///
/// # Safety
///
/// `dst` must be valid for writes of `len` bytes (any alignment).
#[inline(always)]
pub unsafe fn fill(dst: *mut u8, byte: u8, len: usize) {
    if len <= SHORT {
        // The byte in every lane, by multiplication: no array (see the module).
        let wide = u128::from(byte) * 0x0101_0101_0101_0101_0101_0101_0101_0101;
        // SAFETY: each branch passes `fill_ends` a width `w` with `w <= len <= 2 * w`
        // (for 33..=64, 16-byte stores at 16 and `len - 32` too, within the range).
        unsafe {
            if len > 32 {
                fill_ends(dst, wide, len);
                write_unaligned(dst.add(16).cast::<u128>(), wide);
                write_unaligned(dst.add(len - 32).cast::<u128>(), wide);
            } else if len >= 16 {
                fill_ends(dst, wide, len);
            } else if len >= 8 {
                fill_ends(dst, u64::from(byte) * 0x0101_0101_0101_0101, len);
            } else if len >= 4 {
                fill_ends(dst, u32::from(byte) * 0x0101_0101, len);
            } else if len >= 2 {
                fill_ends(dst, u16::from(byte) * 0x0101, len);
            } else if len == 1 {
                dst.write(byte);
            }
        }
    } else {
        // SAFETY: `rep stosb` stores `al` into `rcx` bytes upwards from `rdi`: the
        // caller's range. It changes no flag and no stack.
        unsafe {
            asm!(
                "rep stosb",
                inout("rcx") len => _,
                inout("rdi") dst => _,
                in("al") byte,
                options(nostack, preserves_flags),
            );
        }
    }
}

/// Stores `word` at the first and the last `size_of::<W>()` bytes of `len`.
///
/// # Safety
///
/// `dst` valid for writes of `len` bytes, `len >= size_of::<W>()`.
#[inline(always)]
unsafe fn fill_ends<W: Copy>(dst: *mut u8, word: W, len: usize) {
    let last = len - std::mem::size_of::<W>();
    // SAFETY: both stores are `size_of::<W>()` bytes at offset 0 or `last`, and
    // `last + size_of::<W>() == len`.
    unsafe {
        write_unaligned(dst.cast::<W>(), word);
        write_unaligned(dst.add(last).cast::<W>(), word);
    }
}

/// The C library's names for [`copy`] and [`fill`], in a musl build only.
#[cfg(target_env = "musl")]
mod exported {
    /// `memcpy`: [`super::copy`] (which also allows what `memcpy` need not).
    ///
    /// # Safety
    ///
    /// As C's `memcpy`.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, len: usize) -> *mut u8 {
        // SAFETY: C's contract for `memcpy` is stronger than `copy`'s.
        unsafe { super::copy(dst, src, len) };
        dst
    }

    /// `memmove`: [`super::copy`].
    ///
    /// # Safety
    ///
    /// As C's `memmove`.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, len: usize) -> *mut u8 {
        // SAFETY: C's contract for `memmove` is `copy`'s.
        unsafe { super::copy(dst, src, len) };
        dst
    }

    /// `memset`: [`super::fill`] with the low byte of `value`, as C converts it.
    ///
    /// # Safety
    ///
    /// As C's `memset`.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn memset(dst: *mut u8, value: i32, len: usize) -> *mut u8 {
        // SAFETY: C's contract for `memset` is `fill`'s.
        unsafe { super::fill(dst, value as u8, len) };
        dst
    }
}

#[cfg(test)]
mod tests {
    use super::{copy, fill};

    /// Lengths around every branch of both routines, and a few long ones.
    fn lengths() -> impl Iterator<Item = usize> {
        (0..=300).chain([511, 512, 513, 1000, 4096, 4099])
    }

    /// A buffer whose every byte differs from its neighbours', so a byte copied
    /// from the wrong place shows.
    fn pattern(len: usize, seed: usize) -> Vec<u8> {
        (0..len)
            .map(|i| ((i * 7 + seed * 13) % 251) as u8)
            .collect()
    }

    // The expected bytes are copied one at a time on purpose: not with the
    // `memcpy` under test.
    #[allow(clippy::manual_memcpy)]
    #[test]
    fn copies_between_buffers_at_every_length_and_alignment() {
        for len in lengths() {
            for src_at in 0..4 {
                for dst_at in [0, 1, 3, 8] {
                    let src = pattern(len + src_at, 1);
                    let mut dst = pattern(len + dst_at + 8, 2);
                    let mut expected = dst.clone();
                    for i in 0..len {
                        expected[dst_at + i] = src[src_at + i];
                    }
                    // SAFETY: both ranges are inside their vectors.
                    unsafe { copy(dst.as_mut_ptr().add(dst_at), src.as_ptr().add(src_at), len) };
                    assert_eq!(dst, expected, "len {len}, src at {src_at}, dst at {dst_at}");
                }
            }
        }
    }

    #[test]
    fn overlapping_ranges_copy_as_if_through_a_buffer() {
        for len in lengths().filter(|&l| l <= 1000) {
            for shift in [
                -70isize, -65, -33, -17, -8, -1, 0, 1, 2, 7, 16, 31, 64, 65, 200,
            ] {
                let room = len + 140;
                let mut buf = pattern(room + 200, 3);
                let src_at = 70usize;
                let dst_at = (src_at as isize + shift) as usize;
                let saved: Vec<u8> = (0..len).map(|i| buf[src_at + i]).collect();
                let mut expected = buf.clone();
                for (i, b) in saved.iter().enumerate() {
                    expected[dst_at + i] = *b;
                }
                let base = buf.as_mut_ptr();
                // SAFETY: both ranges are inside `buf` (70 bytes of room below the
                // source, at least 200 above it).
                unsafe { copy(base.add(dst_at), base.add(src_at), len) };
                assert_eq!(buf, expected, "len {len}, shift {shift}");
            }
        }
    }

    #[test]
    fn fills_exactly_its_range() {
        for len in lengths() {
            for at in [0, 1, 5, 8] {
                for byte in [0u8, 0x5a, 0xff] {
                    let mut buf = pattern(len + at + 9, 4);
                    let mut expected = buf.clone();
                    for b in &mut expected[at..at + len] {
                        *b = byte;
                    }
                    // SAFETY: the range is inside `buf`.
                    unsafe { fill(buf.as_mut_ptr().add(at), byte, len) };
                    assert_eq!(buf, expected, "len {len}, at {at}, byte {byte}");
                }
            }
        }
    }

    #[test]
    fn the_direction_flag_is_clear_after_a_backward_copy() {
        let mut buf = pattern(300, 5);
        let base = buf.as_mut_ptr();
        // SAFETY: both ranges are inside `buf`.
        unsafe { copy(base.add(10), base, 200) };
        let flags: u64;
        // SAFETY: pushes the flags and pops them into a register: balanced.
        unsafe { std::arch::asm!("pushfq", "pop {}", out(reg) flags) };
        assert_eq!(flags & (1 << 10), 0, "DF set after copy");
    }
}
