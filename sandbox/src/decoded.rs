//! Decoded size: the heap a frame's value owns once decoded, bounded *while* decoding.
//!
//! bincode's byte limit counts length prefixes and string bytes, not the elements of a
//! sequence: one frame of empty strings (one wire byte each, 24 bytes of `String` each)
//! decoded to 25 times its wire length, and a `Vec<()>` claiming 2^40 elements cost
//! nothing at all. So every decode here runs through [`Budgeted`], a serde wrapper that
//! charges a [`Budget`] **before** the memory is taken:
//!
//! * a sequence of `n` elements of type `T`: `n × max(size_of::<T>(), 1)`, charged in
//!   full when its first element is requested (the length is known then), so a
//!   sequence whose elements would not fit is refused before any of them is built;
//!   zero-sized elements cost one byte each, so no length is free;
//! * a map of `n` entries: `n × (max(size_of::<K>(), 1) + max(size_of::<V>(), 1))`;
//! * a string or byte buffer: its length, charged before the visitor copies it;
//! * a struct, tuple, option or enum: nothing of its own (it lives inline in its parent,
//!   whose slot was charged), except that each level counts against [`MAX_DEPTH`].
//!
//! What is not charged is what a wire type must therefore not contain: `Box`, `Rc`,
//! `Arc` and other heap pointers (they allocate behind the sequence slot that was
//! charged). No wire type of mcp-warden holds one.
//!
//! A sender that wants to know whether its frame will pass runs the very same decoder
//! over the bytes it is about to send (`Sender::send_within`): no second model of the
//! charges exists that could disagree with this one.
//!
//! Real allocations can exceed the figure by `Vec`'s rounding: serde preallocates at
//! most 1 MiB per sequence from the length hint, and grows by doubling beyond it, so a
//! decoded value holds at most twice its charged size plus 1 MiB per open sequence.

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};

/// Deepest nesting of containers (sequences, structs, options, enums…) a decode
/// accepts. mcp-warden's deepest wire type nests about 15 levels; the bound exists so
/// that a recursive type added later cannot turn a hostile frame into a stack overflow.
pub(crate) const MAX_DEPTH: usize = 64;

/// What a decode may still allocate, and why it stopped if it did.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: u64,
    remaining: Cell<u64>,
    depth: Cell<usize>,
    exceeded: Cell<Option<Exceeded>>,
}

/// Why a [`Budget`] refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exceeded {
    /// The value would own more than the budget.
    Size,
    /// Nesting deeper than [`MAX_DEPTH`].
    Depth,
}

impl Budget {
    pub(crate) fn new(bytes: u64) -> Self {
        Budget {
            limit: bytes,
            remaining: Cell::new(bytes),
            depth: Cell::new(0),
            exceeded: Cell::new(None),
        }
    }

    /// What has been charged so far.
    pub(crate) fn spent(&self) -> u64 {
        self.limit - self.remaining.get()
    }

    /// Why the decode was refused, if the budget refused it.
    pub(crate) fn exceeded(&self) -> Option<Exceeded> {
        self.exceeded.get()
    }

    fn charge<E: de::Error>(&self, bytes: u64) -> Result<(), E> {
        match self.remaining.get().checked_sub(bytes) {
            Some(left) => {
                self.remaining.set(left);
                Ok(())
            }
            None => {
                self.exceeded.set(Some(Exceeded::Size));
                Err(E::custom("the decoded value exceeds its size budget"))
            }
        }
    }

    /// Elements the budget could still pay for at one byte each (a length hint cap).
    fn affordable(&self) -> usize {
        usize::try_from(self.remaining.get()).unwrap_or(usize::MAX)
    }

    fn enter<E: de::Error>(&self) -> Result<(), E> {
        let depth = self.depth.get() + 1;
        if depth > MAX_DEPTH {
            self.exceeded.set(Some(Exceeded::Depth));
            return Err(E::custom("the decoded value nests too deeply"));
        }
        self.depth.set(depth);
        Ok(())
    }

    fn leave(&self) {
        self.depth.set(self.depth.get().saturating_sub(1));
    }
}

/// The charge for one slot of type `T` in a sequence or map.
fn slot<T>() -> u64 {
    u64::try_from(std::mem::size_of::<T>().max(1)).unwrap_or(u64::MAX)
}

fn slots(n: usize, each: u64) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX).saturating_mul(each)
}

fn len_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

// ---------------------------------------------------------------------------
// Decoding side.

/// Deserialize a `T` through a budget: the seed handed to the bincode decoder.
pub(crate) struct Budgeted<'b, T> {
    budget: &'b Budget,
    _type: PhantomData<fn() -> T>,
}

impl<'b, T> Budgeted<'b, T> {
    pub(crate) fn new(budget: &'b Budget) -> Self {
        Budgeted {
            budget,
            _type: PhantomData,
        }
    }
}

impl<'de, T: de::Deserialize<'de>> DeserializeSeed<'de> for Budgeted<'_, T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize(Wrap {
            inner: deserializer,
            budget: self.budget,
        })
    }
}

/// A deserializer (or visitor, or access) wrapped so that everything below it is charged.
struct Wrap<'b, X> {
    inner: X,
    budget: &'b Budget,
}

/// A seed wrapped the same way: the element, key or value below is decoded through
/// [`Wrap`].
struct WrapSeed<'b, S> {
    seed: S,
    budget: &'b Budget,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for WrapSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Wrap {
            inner: deserializer,
            budget: self.budget,
        })
    }
}

/// How a visitor's sequence access is charged.
#[derive(Clone, Copy)]
enum SeqKind {
    /// A real sequence (`Vec`, …): every element is a heap slot.
    Heap,
    /// Struct fields or tuple members: inline, nothing to charge.
    Inline,
}

/// A visitor wrapped so the accesses it is given are charged.
struct WrapVisitor<'b, V> {
    visitor: V,
    budget: &'b Budget,
    seq: SeqKind,
}

/// Forwards a scalar `deserialize_*` call unchanged (nothing below it allocates).
macro_rules! forward_scalar {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method(WrapVisitor { visitor, budget: self.budget, seq: SeqKind::Inline })
        })*
    };
}

/// Forwards a container `deserialize_*` call one level deeper.
macro_rules! nested {
    ($self:ident, $seq:expr, |$inner:ident, $visitor:ident| $call:expr) => {{
        $self.budget.enter()?;
        let $inner = $self.inner;
        let $visitor = WrapVisitor {
            visitor: $visitor,
            budget: $self.budget,
            seq: $seq,
        };
        let out = $call;
        $self.budget.leave();
        out
    }};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Wrap<'_, D> {
    type Error = D::Error;

    forward_scalar! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        nested!(self, SeqKind::Heap, |inner, visitor| inner
            .deserialize_any(visitor))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        nested!(self, SeqKind::Inline, |inner, visitor| inner
            .deserialize_option(visitor))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_unit_struct(
            name,
            WrapVisitor {
                visitor,
                budget: self.budget,
                seq: SeqKind::Inline,
            },
        )
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        nested!(self, SeqKind::Inline, |inner, visitor| inner
            .deserialize_newtype_struct(name, visitor))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        nested!(self, SeqKind::Heap, |inner, visitor| inner
            .deserialize_seq(visitor))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        nested!(self, SeqKind::Inline, |inner, visitor| inner
            .deserialize_tuple(len, visitor))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        nested!(self, SeqKind::Inline, |inner, visitor| inner
            .deserialize_tuple_struct(name, len, visitor))
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        nested!(self, SeqKind::Heap, |inner, visitor| inner
            .deserialize_map(visitor))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        nested!(self, SeqKind::Inline, |inner, visitor| inner
            .deserialize_struct(name, fields, visitor))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        nested!(self, SeqKind::Inline, |inner, visitor| inner
            .deserialize_enum(name, variants, visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// Forwards a scalar `visit_*` call unchanged.
macro_rules! visit_scalar {
    ($($method:ident: $ty:ty)*) => {
        $(fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.visitor.$method(v)
        })*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for WrapVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    visit_scalar! {
        visit_bool: bool visit_i8: i8 visit_i16: i16 visit_i32: i32 visit_i64: i64
        visit_i128: i128 visit_u8: u8 visit_u16: u16 visit_u32: u32 visit_u64: u64
        visit_u128: u128 visit_f32: f32 visit_f64: f64 visit_char: char
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.budget.charge(len_u64(v.len()))?;
        self.visitor.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.budget.charge(len_u64(v.len()))?;
        self.visitor.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.budget.charge(len_u64(v.len()))?;
        self.visitor.visit_string(v)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.budget.charge(len_u64(v.len()))?;
        self.visitor.visit_bytes(v)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        self.budget.charge(len_u64(v.len()))?;
        self.visitor.visit_borrowed_bytes(v)
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V::Value, E> {
        self.budget.charge(len_u64(v.len()))?;
        self.visitor.visit_byte_buf(v)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_some(Wrap {
            inner: deserializer,
            budget: self.budget,
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_unit()
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        self.visitor.visit_newtype_struct(Wrap {
            inner: deserializer,
            budget: self.budget,
        })
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_seq(WrapSeq {
            inner: seq,
            budget: self.budget,
            kind: self.seq,
            prepaid: None,
        })
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(WrapMap {
            inner: map,
            budget: self.budget,
            prepaid: None,
        })
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(Wrap {
            inner: data,
            budget: self.budget,
        })
    }
}

/// A sequence access that charges every element slot (for [`SeqKind::Heap`]).
struct WrapSeq<'b, A> {
    inner: A,
    budget: &'b Budget,
    kind: SeqKind,
    /// Elements already paid for by the up-front charge (`None` before the first).
    prepaid: Option<usize>,
}

impl<'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for WrapSeq<'_, A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        if let SeqKind::Heap = self.kind {
            let each = slot::<S::Value>();
            // The first request: the decoder knows how many elements follow, so the
            // whole sequence is paid for (or refused) before one is built.
            if self.prepaid.is_none() {
                let n = self.inner.size_hint().unwrap_or(0);
                self.budget.charge(slots(n, each))?;
                self.prepaid = Some(n);
            }
            match self.prepaid {
                Some(n) if n > 0 => self.prepaid = Some(n - 1),
                // The request that finds the end costs nothing.
                _ if self.inner.size_hint() == Some(0) => {}
                // More elements than announced (not bincode): pay as they come.
                _ => self.budget.charge(each)?,
            }
        }
        self.inner.next_element_seed(WrapSeed {
            seed,
            budget: self.budget,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        // Preallocation follows this hint: never more slots than one byte each could buy.
        self.inner
            .size_hint()
            .map(|n| n.min(self.budget.affordable()))
    }
}

/// A map access that charges every entry's key and value slots.
struct WrapMap<'b, A> {
    inner: A,
    budget: &'b Budget,
    prepaid: Option<usize>,
}

impl<A> WrapMap<'_, A> {
    fn pay<T, E: de::Error>(&mut self, hint: Option<usize>) -> Result<(), E> {
        let each = slot::<T>();
        if self.prepaid.is_none() {
            let n = hint.unwrap_or(0);
            self.budget.charge(slots(n, each))?;
            self.prepaid = Some(n);
        }
        match self.prepaid {
            Some(n) if n > 0 => {
                self.prepaid = Some(n - 1);
                Ok(())
            }
            _ if hint == Some(0) => Ok(()),
            _ => self.budget.charge(each),
        }
    }
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for WrapMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        // Keys and values are paid separately, each up front for the whole map, so the
        // charge does not depend on which one a visitor asks for first.
        let hint = self.inner.size_hint();
        self.pay::<K::Value, A::Error>(hint)?;
        self.inner.next_key_seed(WrapSeed {
            seed,
            budget: self.budget,
        })
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        let each = slot::<V::Value>();
        self.budget.charge(each)?;
        self.inner.next_value_seed(WrapSeed {
            seed,
            budget: self.budget,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner
            .size_hint()
            .map(|n| n.min(self.budget.affordable()))
    }
}

impl<'de, 'b, A: de::EnumAccess<'de>> de::EnumAccess<'de> for Wrap<'b, A> {
    type Error = A::Error;
    type Variant = Wrap<'b, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), A::Error> {
        let budget = self.budget;
        let (value, variant) = self.inner.variant_seed(WrapSeed { seed, budget })?;
        Ok((
            value,
            Wrap {
                inner: variant,
                budget,
            },
        ))
    }
}

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for Wrap<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.inner.unit_variant()
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        self.inner.newtype_variant_seed(WrapSeed {
            seed,
            budget: self.budget,
        })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.inner.tuple_variant(
            len,
            WrapVisitor {
                visitor,
                budget: self.budget,
                seq: SeqKind::Inline,
            },
        )
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.inner.struct_variant(
            fields,
            WrapVisitor {
                visitor,
                budget: self.budget,
                seq: SeqKind::Inline,
            },
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is the test failure report
mod tests {
    use super::*;
    use bincode::config;
    use serde::{Deserialize, Serialize};

    fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8], budget: u64) -> Result<T, Exceeded> {
        let b = Budget::new(budget);
        match bincode::serde::seed_decode_from_slice(
            Budgeted::<T>::new(&b),
            bytes,
            config::standard(),
        ) {
            Ok((v, _)) => Ok(v),
            Err(_) => Err(b.exceeded().unwrap_or(Exceeded::Depth)),
        }
    }

    fn encode<T: Serialize>(v: &T) -> Vec<u8> {
        bincode::serde::encode_to_vec(v, config::standard()).unwrap()
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Entry {
        name: String,
        tags: Vec<String>,
        pairs: Vec<(String, String)>,
        maybe: Option<Vec<u8>>,
        nested: Vec<Vec<String>>,
        unit: Vec<()>,
    }

    fn sample() -> Vec<Entry> {
        (0..5)
            .map(|i| Entry {
                name: "n".repeat(i),
                tags: vec![String::new(); i],
                pairs: vec![("k".into(), "vv".into()); i],
                maybe: (i % 2 == 0).then(|| vec![7; i]),
                nested: vec![vec!["x".into(); i]; i],
                unit: vec![(); i],
            })
            .collect()
    }

    /// What the value owns, by hand: slots and string bytes.
    fn by_hand(v: &[Entry]) -> u64 {
        let slot = |n: usize, size: usize| (n * size.max(1)) as u64;
        let mut total = slot(v.len(), std::mem::size_of::<Entry>());
        for e in v {
            total += e.name.len() as u64;
            total += slot(e.tags.len(), 24) + e.tags.iter().map(|t| t.len() as u64).sum::<u64>();
            total += slot(e.pairs.len(), 48)
                + e.pairs
                    .iter()
                    .map(|(a, b)| (a.len() + b.len()) as u64)
                    .sum::<u64>();
            total += e.maybe.as_ref().map_or(0, |m| slot(m.len(), 1));
            total += slot(e.nested.len(), 24);
            for n in &e.nested {
                total += slot(n.len(), 24) + n.iter().map(|t| t.len() as u64).sum::<u64>();
            }
            total += slot(e.unit.len(), 0);
        }
        total
    }

    #[test]
    fn the_charge_is_what_the_value_owns() {
        let value = sample();
        let exact = by_hand(&value);
        assert!(exact > 0);
        let bytes = encode(&value);
        // Exactly the counted size decodes; one byte less is refused.
        assert_eq!(decode::<Vec<Entry>>(&bytes, exact).unwrap(), value);
        assert_eq!(decode::<Vec<Entry>>(&bytes, exact - 1), Err(Exceeded::Size));
    }

    #[test]
    fn a_sequence_is_refused_before_its_elements_are_built() {
        // 100,000 empty strings: 100,000 wire bytes, 2.4 MB of `String`s.
        let bytes = encode(&vec![String::new(); 100_000]);
        assert!(bytes.len() < 100_010);
        assert_eq!(
            decode::<Vec<String>>(&bytes, 2_000_000),
            Err(Exceeded::Size)
        );
        assert!(decode::<Vec<String>>(&bytes, 2_400_000).is_ok());
        // Zero-sized elements are not free: a claimed 2^40 `()`s fail at once.
        let mut claim = vec![0xfd];
        claim.extend_from_slice(&(1u64 << 40).to_le_bytes());
        let start = std::time::Instant::now();
        assert_eq!(decode::<Vec<()>>(&claim, 1 << 20), Err(Exceeded::Size));
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn nesting_is_bounded() {
        #[derive(Debug, Serialize, Deserialize)]
        enum Tree {
            Leaf,
            Node(Option<Box<Tree>>),
        }
        let mut t = Tree::Leaf;
        for _ in 0..200 {
            t = Tree::Node(Some(Box::new(t)));
        }
        let bytes = encode(&t);
        assert_eq!(decode::<Tree>(&bytes, 1 << 20).err(), Some(Exceeded::Depth));
    }
}
