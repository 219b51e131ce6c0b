//! The `gsync-check` command: parse arguments, call the library, print,
//! exit with 0 verified, 1 violated, 2 usage or spec error, 3 inconclusive.

use clap::Parser;
use gsync_check::cli;

/// Counts the heap, so that `--max-memory` bounds everything a check
/// allocates (`gsync_check::explore::heap`).
#[global_allocator]
static HEAP: gsync_check::explore::heap::CountingAlloc = gsync_check::explore::heap::CountingAlloc;

fn main() {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`| head`) would
    // be an error on every print; a command-line tool should just stop.
    #[cfg(unix)]
    // SAFETY: setting a signal disposition to its default before any
    // thread is started has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    gsync_check::explore::heap::map_large_blocks();
    let args = cli::command::Cli::parse();
    std::process::exit(cli::main_with(args));
}
