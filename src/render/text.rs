//! The human report on stdout.
