//! The human report on stdout.

// Placeholder signatures; replaced by the implementation.
use std::io::{self, Write};

use crate::model::Report;

#[derive(Debug, Clone, Copy)]
pub struct TextStyle {
    pub color: bool,
    pub width: usize,
}

pub fn render(_report: &Report, _out: &mut dyn Write, _style: TextStyle) -> io::Result<()> {
    Ok(())
}

pub fn no_configs_line(searched: usize) -> String {
    format!("no MCP configs found (searched {searched} well-known location(s); pass --config to add one)")
}
