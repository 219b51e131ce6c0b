//! The `gsync-check` command: parse arguments, call the library, print,
//! exit with 0 verified, 1 violated, 2 usage or spec error, 3 inconclusive.

mod cli;

use clap::Parser;

fn main() {
    let args = cli::args::Cli::parse();
    std::process::exit(cli::main_with(args));
}
