//! The Unvanquished `.bt` dialect.
