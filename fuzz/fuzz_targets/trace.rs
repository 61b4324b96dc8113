#![no_main]
//! `cargo fuzz run trace`: ssdlab_cli::fuzz::trace under libFuzzer.

libfuzzer_sys::fuzz_target!(|data: &[u8]| ssdlab_cli::fuzz::trace(data));
