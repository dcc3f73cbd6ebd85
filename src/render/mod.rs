//! Everything that turns a [`crate::model::Report`] into bytes for a terminal, a
//! pipe or a file. Every config-controlled string passes through [`safe_text`]
//! here and nowhere else.

pub mod audit;
pub mod jsonl;
pub mod next_steps;
pub mod safe_text;
pub mod sarif;
pub mod shell;
pub mod text;

pub use safe_text::{safe_text, safe_text_capped};
