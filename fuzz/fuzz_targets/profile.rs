#![no_main]
//! `cargo fuzz run profile`: ssdlab_cli::fuzz::profile under libFuzzer.

libfuzzer_sys::fuzz_target!(|data: &[u8]| ssdlab_cli::fuzz::profile(data));
