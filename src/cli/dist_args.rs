//! The options of a distributed run (`--processes`, `--local-processes`,
//! ...), flattened into a check's options.

use crate::api::args::{at_least_1, positive_seconds};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug, Clone, Default)]
pub struct DistArgs {
    /// Distributed run: the number of processes (each started with the same arguments, its own --process, and the same --hostfile). See book/src/distributed.md
    #[arg(long, value_name = "N", value_parser = at_least_1::<usize>, conflicts_with = "local_processes")]
    pub processes: Option<usize>,

    /// Distributed run: this process's index, 0 to N-1 (process 0 prints the report)
    #[arg(long, value_name = "I", requires = "processes")]
    pub process: Option<usize>,

    /// Distributed run: a file of one host:port a line, process 0 first [default: localhost:2101 and up]
    #[arg(long, value_name = "FILE", requires = "processes")]
    pub hostfile: Option<PathBuf>,

    /// Distributed run on this machine: start N processes of this binary over loopback
    #[arg(long, value_name = "N", value_parser = at_least_1::<usize>)]
    pub local_processes: Option<usize>,

    /// Distributed run: seconds to wait for every process to connect [default: 30]
    #[arg(long, value_name = "S", value_parser = positive_seconds)]
    pub connect_timeout: Option<f64>,
}
