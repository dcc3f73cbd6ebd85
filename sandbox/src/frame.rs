//! The wire codec: the only module that knows the byte format, so it can be swapped here.
//!
//! A frame is a `u32` little-endian payload length followed by a bincode 2.0.1 payload
//! (`bincode::serde`, standard config: varints, little endian). The receiver
//!
//! 1. checks the announced length against its limit **before** allocating anything
//!    ([`FrameReader`], [`read_frame`]);
//! 2. decodes through the decoded-size budget of [`crate::decoded`]: every sequence
//!    slot and every string byte the value will own is charged before it is built, and
//!    the value may own at most [`decoded_bound`] bytes (8 bytes per payload byte plus
//!    16 KiB), or, for a message with a share, the share's `max_decoded` instead (sized
//!    from the file it answers for: honest records of empty fields exceed 8 bytes per
//!    wire byte). This is the bound on what one
//!    frame can make the receiver allocate. bincode's own `with_limit` stays in place
//!    underneath: it counts only length prefixes and string bytes (not sequence
//!    elements: a frame of empty strings decoded to 25 times its size under it alone),
//!    so it is a second fence, not the bound;
//! 3. rejects a payload the decoder did not consume entirely (`used != len`).
//!
//! Unknown enum variants are rejected by the decoder. Wire types must not hold `Box`,
//! `Rc` or `Arc` (their allocation is not charged; see `decoded.rs`).

use std::io::Read;

use bincode::config::{self, Config};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::decoded::{self, Budget, Budgeted, Exceeded};
use crate::{Confinement, SandboxError};

/// Protocol version in the child's hello; bumped whenever the frame envelope or its
/// meaning changes.
pub const PROTOCOL_VERSION: u32 = 2;

/// bincode's own claim limit (it counts 8 bytes per length prefix and integer, so up
/// to 8 times a frame's wire length, and a frame may be up to 4 GiB long); a second
/// fence under the decoded-size budget.
const DECODE_LIMIT: usize = if usize::BITS >= 64 {
    (1u64 << 35) as usize
} else {
    usize::MAX
};

/// Decoded bytes allowed per payload byte (see [`decoded_bound`]).
pub const DECODE_FACTOR: u64 = 8;
/// Decoded bytes allowed in any frame on top of [`DECODE_FACTOR`] per payload byte.
pub const DECODE_SLACK: u64 = 16 << 10;

/// Most heap bytes the value of a `payload_len`-byte payload may own once decoded:
/// `DECODE_FACTOR × payload_len + DECODE_SLACK`. Every frame, in both directions, is
/// held to it while it is decoded.
///
/// Why 8: real answers own 1.2 to 4.7 times their wire size (measured by
/// `honest_answers_fit_their_shares` in the main crate: a lock summary 1.2–1.3, a
/// whole lock 1.9–4.6, configs of 20,000 short server entries 4.5–4.7). Honest records
/// of nearly empty fields go beyond (up to 24 for empty arguments), which is why a
/// message with a share is held to its share instead; this bound is for every other
/// frame (the hello, the end marker, the request, an exchange without shares).
#[must_use]
pub fn decoded_bound(payload_len: usize) -> u64 {
    u64::try_from(payload_len)
        .unwrap_or(u64::MAX)
        .saturating_mul(DECODE_FACTOR)
        .saturating_add(DECODE_SLACK)
}

/// Bytes of the length prefix.
pub(crate) const HEADER_LEN: usize = 4;

fn wire_config() -> impl Config {
    config::standard().with_limit::<DECODE_LIMIT>()
}

/// Everything the child sends, in order: one `Hello`, any number of messages (each a
/// `Message`, after any number of its `Part`s), one `End`.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum ChildFrame<M> {
    /// Sent after confinement, before the request is read.
    Hello {
        version: u32,
        confinement: Confinement,
    },
    Message(M),
    /// The number of `Message` frames sent; the parent checks it.
    End {
        count: u64,
    },
    /// Part of the next message, sent ahead of it so the parent can decode and use it
    /// while the child works on the rest. Parts and the `Message` that completes them
    /// are one message: they share its share and count once in `End`.
    Part(M),
}

/// Encodes `value` as one complete frame (prefix included).
pub(crate) fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, SandboxError> {
    // The payload is encoded after a placeholder header that is filled in once its
    // length is known: no second copy of a multi-megabyte report.
    let mut out = vec![0u8; HEADER_LEN];
    bincode::serde::encode_into_std_write(value, &mut out, config::standard())
        .map_err(|e| SandboxError::Encode(e.to_string()))?;
    let payload_len = out.len() - HEADER_LEN;
    let len = u32::try_from(payload_len)
        .map_err(|_| SandboxError::Encode(format!("{payload_len} bytes exceed a frame")))?;
    out[..HEADER_LEN].copy_from_slice(&len.to_le_bytes());
    Ok(out)
}

/// Decodes one payload (prefix already removed) under [`decoded_bound`]; the whole
/// payload must be consumed.
pub(crate) fn decode<T: DeserializeOwned>(payload: &[u8]) -> Result<T, SandboxError> {
    decode_within(payload, decoded_bound(payload.len())).map(|(value, _)| value)
}

/// [`decode`] with the decoded-size budget `max_decoded` (the caller's: the frame's
/// [`decoded_bound`], or a message's share); also returns the decoded bytes the value
/// was charged.
///
/// Under the budget sits bincode's claim limit, scaled to the payload: the smallest
/// power of two from 64 KiB that is at least 8 bytes per payload byte (no honest value
/// claims more: a one-byte varint claims 8), up to [`DECODE_LIMIT`]. A 26-byte
/// frame announcing a 10 MB string thus fails without allocating it (found by the
/// `frame` fuzz target).
pub(crate) fn decode_within<T: DeserializeOwned>(
    payload: &[u8],
    max_decoded: u64,
) -> Result<(T, u64), SandboxError> {
    let budget = max_decoded;
    let need = u64::try_from(payload.len())
        .unwrap_or(u64::MAX)
        .saturating_mul(8);
    macro_rules! scaled {
        ($($shift:literal)*) => {
            $(if need <= 1u64 << $shift {
                decode_with(payload, budget, config::standard().with_limit::<{ (1u64 << $shift) as usize }>())
            } else)* {
                decode_with(payload, budget, wire_config())
            }
        };
    }
    scaled!(16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34)
}

/// What one message costs its receiver, as the receiver measures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageCost {
    /// Frame payload bytes (the message and its frame tag).
    pub payload: u64,
    /// Decoded bytes the value owns; above the share's `max_decoded` it is reported as
    /// one more than that.
    pub decoded: u64,
}

/// The cost of an encoded message frame payload, measured by decoding it exactly as
/// the parent does, under the share's budget (a payload over the share's
/// `max_payload` is not decoded: its decoded cost is reported as 0).
pub(crate) fn message_cost<M: DeserializeOwned>(
    payload: &[u8],
    share: &crate::MessageShare,
) -> Result<MessageCost, SandboxError> {
    let len = u64::try_from(payload.len()).unwrap_or(u64::MAX);
    if len > u64::from(share.max_payload) {
        return Ok(MessageCost {
            payload: len,
            decoded: 0,
        });
    }
    let bound = share.max_decoded;
    let decoded = match decode_within::<ChildFrame<M>>(payload, bound) {
        // The decoded copy is dropped at once.
        Ok((_, spent)) => spent,
        Err(SandboxError::DecodedTooLarge { .. }) => bound.saturating_add(1),
        Err(e) => return Err(e),
    };
    Ok(MessageCost {
        payload: len,
        decoded,
    })
}

/// The value and the decoded bytes it was charged.
fn decode_with<T: DeserializeOwned>(
    payload: &[u8],
    budget: u64,
    config: impl Config,
) -> Result<(T, u64), SandboxError> {
    let meter = Budget::new(budget);
    let decoded =
        bincode::serde::seed_decode_from_slice(Budgeted::<T>::new(&meter), payload, config);
    let (value, used) = decoded.map_err(|e| match meter.exceeded() {
        Some(Exceeded::Size) => SandboxError::DecodedTooLarge {
            len: u64::try_from(payload.len()).unwrap_or(u64::MAX),
            max: budget,
        },
        Some(Exceeded::Depth) => SandboxError::BadFrame(format!(
            "the value nests deeper than {} levels",
            decoded::MAX_DEPTH
        )),
        None => SandboxError::BadFrame(e.to_string()),
    })?;
    if used != payload.len() {
        return Err(SandboxError::BadFrame(format!(
            "{} trailing bytes after a {used}-byte value",
            payload.len() - used
        )));
    }
    Ok((value, meter.spent()))
}

/// Checks an announced payload length against `max` before anything is allocated.
fn checked_len(header: [u8; HEADER_LEN], max: u32) -> Result<usize, SandboxError> {
    let len = u32::from_le_bytes(header);
    if len > max {
        return Err(SandboxError::FrameTooLarge {
            len: u64::from(len),
            max: u64::from(max),
        });
    }
    usize::try_from(len).map_err(|_| SandboxError::FrameTooLarge {
        len: u64::from(len),
        max: u64::from(max),
    })
}

/// Reads exactly one frame from a blocking reader (the child reading its request).
/// `Ok(None)` on a clean end of stream before the first byte.
pub(crate) fn read_frame<T: DeserializeOwned, R: Read>(
    reader: &mut R,
    max: u32,
) -> Result<Option<T>, SandboxError> {
    let mut header = [0u8; HEADER_LEN];
    let mut got = 0;
    while got < HEADER_LEN {
        match reader.read(&mut header[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => {
                return Err(SandboxError::BadFrame(
                    "stream ended inside a header".into(),
                ))
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(SandboxError::child_io("read a frame header")(e)),
        }
    }
    let len = checked_len(header, max)?;
    let mut payload = vec![0u8; len];
    reader
        .read_exact(&mut payload)
        .map_err(|_| SandboxError::BadFrame("stream ended inside a payload".into()))?;
    decode(&payload).map(Some)
}

/// Splits a non-blocking byte stream into frame payloads (the parent reading the child).
///
/// Memory stays bounded by `max + HEADER_LEN` plus one read: the buffer only grows with
/// bytes that actually arrived, and a too-large length is refused as soon as its header
/// is complete.
#[derive(Debug)]
pub(crate) struct FrameReader {
    buf: Vec<u8>,
    max: u32,
}

impl FrameReader {
    pub(crate) fn new(max: u32) -> Self {
        FrameReader {
            buf: Vec::new(),
            max,
        }
    }

    /// The limit for the frames still to come (a message's share, checked at its header).
    pub(crate) fn set_max(&mut self, max: u32) {
        self.max = max;
    }

    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete payload, `Ok(None)` if more bytes are needed.
    pub(crate) fn next_payload(&mut self) -> Result<Option<Vec<u8>>, SandboxError> {
        let Some(header) = self.buf.first_chunk::<HEADER_LEN>() else {
            return Ok(None);
        };
        let len = checked_len(*header, self.max)?;
        if self.buf.len() - HEADER_LEN < len {
            // The length is within the limit: make room for the whole frame once
            // instead of doubling the buffer (and faulting in new pages) as it arrives.
            self.buf.reserve_exact(HEADER_LEN + len - self.buf.len());
            return Ok(None);
        }
        if self.buf.len() == HEADER_LEN + len {
            // The buffer is exactly this frame (the usual case for a large report,
            // whose room was reserved above): hand it over instead of copying it.
            let mut payload = std::mem::take(&mut self.buf);
            payload.drain(..HEADER_LEN);
            return Ok(Some(payload));
        }
        let payload = self.buf[HEADER_LEN..HEADER_LEN + len].to_vec();
        self.buf.drain(..HEADER_LEN + len);
        Ok(Some(payload))
    }

    /// Bytes received that do not form a complete frame yet.
    pub(crate) fn pending(&self) -> usize {
        self.buf.len()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is the test failure report
mod tests {
    use super::*;

    type Frame = ChildFrame<String>;

    fn hello() -> Frame {
        ChildFrame::Hello {
            version: PROTOCOL_VERSION,
            confinement: Confinement::none(),
        }
    }

    #[test]
    fn round_trip_through_the_reader() {
        let mut r = FrameReader::new(1 << 20);
        let mut bytes = encode(&hello()).unwrap();
        bytes.extend(encode(&Frame::Message("a".into())).unwrap());
        bytes.extend(encode(&Frame::End { count: 1 }).unwrap());
        // One byte at a time: frames must reassemble across arbitrary read boundaries.
        let mut out = Vec::new();
        for b in &bytes {
            r.push(std::slice::from_ref(b));
            while let Some(p) = r.next_payload().unwrap() {
                out.push(decode::<Frame>(&p).unwrap());
            }
        }
        assert_eq!(out.len(), 3);
        assert!(matches!(&out[1], ChildFrame::Message(s) if s == "a"));
        assert!(matches!(out[2], ChildFrame::End { count: 1 }));
        assert_eq!(r.pending(), 0);
    }

    #[test]
    fn truncated_frame_is_incomplete_not_an_error() {
        let bytes = encode(&Frame::Message("hello".into())).unwrap();
        let mut r = FrameReader::new(1 << 20);
        r.push(&bytes[..bytes.len() - 1]);
        assert!(r.next_payload().unwrap().is_none());
        assert_eq!(r.pending(), bytes.len() - 1);
        // A blocking reader sees the same stream end as an error.
        let mut cut = &bytes[..bytes.len() - 1];
        assert!(matches!(
            read_frame::<Frame, _>(&mut cut, 1 << 20),
            Err(SandboxError::BadFrame(_))
        ));
        let mut cut = &bytes[..2];
        assert!(read_frame::<Frame, _>(&mut cut, 1 << 20).is_err());
        let mut empty: &[u8] = &[];
        assert!(read_frame::<Frame, _>(&mut empty, 1 << 20)
            .unwrap()
            .is_none());
    }

    #[test]
    fn oversized_length_is_refused_before_allocation() {
        let mut r = FrameReader::new(1024);
        r.push(&u32::MAX.to_le_bytes());
        assert!(matches!(
            r.next_payload(),
            Err(SandboxError::FrameTooLarge { len, max: 1024 }) if len == u64::from(u32::MAX)
        ));
        let mut header: &[u8] = &2000u32.to_le_bytes();
        assert!(matches!(
            read_frame::<Frame, _>(&mut header, 1024),
            Err(SandboxError::FrameTooLarge { .. })
        ));
    }

    #[test]
    fn garbage_and_unknown_variants_are_refused() {
        // Variant index 9 does not exist.
        assert!(matches!(
            decode::<Frame>(&[9, 0, 0]),
            Err(SandboxError::BadFrame(_))
        ));
        assert!(decode::<Frame>(&[0xff; 16]).is_err());
        assert!(decode::<Frame>(&[]).is_err());
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let mut bytes = encode(&Frame::End { count: 0 }).unwrap();
        bytes.push(0);
        let payload = &bytes[HEADER_LEN..];
        assert!(matches!(
            decode::<Frame>(payload),
            Err(SandboxError::BadFrame(m)) if m.contains("trailing")
        ));
    }

    #[test]
    fn a_claimed_string_longer_than_the_frame_is_not_allocated() {
        // Variant 1 (Message), then a 10 MB string length (0xfc + u32) in a 6-byte payload.
        let mut payload = vec![1u8, 0xfc];
        payload.extend_from_slice(&10_000_000u32.to_le_bytes());
        assert!(matches!(
            decode::<Frame>(&payload),
            Err(SandboxError::BadFrame(m)) if m.contains("LimitExceeded")
        ));
        // An honest large frame still decodes under the scaled limit.
        let big = "x".repeat(3 << 20);
        let bytes = encode(&Frame::Message(big.clone())).unwrap();
        assert!(
            matches!(decode::<Frame>(&bytes[HEADER_LEN..]), Ok(ChildFrame::Message(s)) if s == big)
        );
    }

    #[test]
    fn a_huge_claimed_string_hits_the_decode_limit() {
        // Variant 1 (Message), then a string length of 2^40 as a bincode varint (0xfd + u64).
        let mut payload = vec![1u8, 0xfd];
        payload.extend_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(matches!(
            decode::<Frame>(&payload),
            Err(SandboxError::BadFrame(_))
        ));
    }
}
