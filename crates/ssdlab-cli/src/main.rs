//! The `ssdlab` binary; everything is in the library (`src/lib.rs`).

fn main() -> std::process::ExitCode {
    ssdlab_cli::main()
}
