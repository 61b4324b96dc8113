#![no_main]
//! `cargo fuzz run config`: ssdlab_cli::fuzz::config under libFuzzer.

libfuzzer_sys::fuzz_target!(|data: &[u8]| ssdlab_cli::fuzz::config(data));
