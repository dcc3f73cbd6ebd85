//! The unconfined side: discovery, supervision of the parser child, validation of
//! its records, the engines, and the report. It never reads a config's bytes.
