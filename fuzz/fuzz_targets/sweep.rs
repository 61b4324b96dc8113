#![no_main]
//! `cargo fuzz run sweep`: ssdlab_cli::fuzz::sweep under libFuzzer.

libfuzzer_sys::fuzz_target!(|data: &[u8]| ssdlab_cli::fuzz::sweep(data));
