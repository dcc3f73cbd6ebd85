//! The hash maps and sets of every zone: `std`'s tables with foldhash's hasher.
//!
//! `std`'s default SipHash-1-3 was the single largest symbol of doctor's profile on
//! a 20,000-server home (about 7 % of its CPU, with `Path` hashing): server names,
//! paths and launch keys are short, and SipHash pays a fixed setup per key.
//! foldhash (the default hasher of `hashbrown`) is several times faster on short keys
//! and is seeded per process from a random source, so a hostile file cannot choose
//! keys that collide without knowing the seed: the flooding resistance the tables
//! of a tool reading attacker-written names need, which a fixed-seed hasher (FxHash)
//! would not have.

pub use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
