//! The native syntax: the canonical text form of the IR (`spec/native-syntax.md`).
