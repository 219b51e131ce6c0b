//! The distributed run's options: the processes of a cluster (timely's
//! `-n/-p/-h` as `--processes/--process/--hostfile`), or `--local-processes
//! N`, which starts N processes of this binary on this machine over
//! loopback and ends the run with an error if one of them dies.

use super::args::CheckArgs;
use super::dist_args::DistArgs;
use crate::api::{self, CheckConfig, Error, SpecSource};
use crate::dist::{self as engine, Cluster, Outcome, EXIT_FAILED};
use crate::report::Report;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Where a check ran.
pub(super) enum Ran {
    /// Not distributed: the caller checks.
    Here,
    /// Process 0 of a distributed run.
    Report(Box<Report>),
    /// Another process: its exit code.
    Peer(i32),
    /// Only one process answers this spec (every process learns it after
    /// the distributed search): why, as an error a single check gives. A
    /// family or `verify` checks it on process 0 alone, and says so.
    OneProcess(Error),
}

/// The processes of a distributed run as this process sees them: none
/// (not distributed), or its place in a cluster, with the processes it
/// started itself under `--local-processes`. A family or `verify` checks
/// its specs one after another on one session: every process walks the
/// same list in the same order, and each check is one timely run over the
/// same addresses.
pub(super) struct Session {
    cluster: Option<Cluster>,
    children: Option<Children>,
}

/// The processes `--local-processes` started, and the thread watching them.
struct Children {
    list: Arc<Mutex<Vec<(usize, Child)>>>,
    done: Arc<AtomicBool>,
    watch: std::thread::JoinHandle<()>,
    dir: std::path::PathBuf,
}

impl Session {
    /// The session the arguments ask for, with `workers` worker threads in
    /// each process: `Some` for a command with `--threads` (the processes
    /// started here get it; those of a cluster take `--threads` or every
    /// core), `None` for one without (one worker each).
    pub(super) fn start(args: &DistArgs, workers: Option<Workers>) -> Result<Session, Error> {
        let timeout = Duration::from_secs_f64(args.connect_timeout.unwrap_or(30.0));
        if let Some(n) = args.local_processes {
            return local(n, workers.map(|w| w.local), timeout);
        }
        let Some(processes) = args.processes else {
            if args.connect_timeout.is_some() {
                return Err(Error::Usage(
                    "--connect-timeout applies to a distributed run (--processes or --local-processes)"
                        .into(),
                ));
            }
            return Ok(Session {
                cluster: None,
                children: None,
            });
        };
        let process = args.process.unwrap_or(0);
        if process >= processes {
            return Err(Error::Usage(format!(
                "--process {process}: the processes are numbered 0 to {}",
                processes - 1
            )));
        }
        if let Some(h) = &args.hostfile {
            hostfile_lines(h, processes)?;
        }
        let cluster = Cluster {
            processes,
            process,
            hostfile: args.hostfile.clone(),
            workers: workers.map_or(1, |w| w.cluster),
            connect_timeout: timeout,
        };
        Ok(Session {
            cluster: Some(cluster),
            children: None,
        })
    }

    /// Whether the checks run distributed.
    pub(super) fn distributed(&self) -> bool {
        self.cluster.is_some()
    }

    /// Whether this process only helps: process 0 reports.
    pub(super) fn is_peer(&self) -> bool {
        self.cluster.as_ref().is_some_and(|c| c.process != 0)
    }

    /// Checks one spec on the session's processes (`Ran::Here`: not
    /// distributed, the caller checks).
    pub(super) fn check(&self, spec: &SpecSource, config: &CheckConfig) -> Result<Ran, Error> {
        match self.cluster {
            Some(_) => self.check_prepared(api::prepare(spec, config)?),
            None => Ok(Ran::Here),
        }
    }

    /// [`check`](Self::check) of a prepared spec.
    pub(super) fn check_prepared(&self, prepared: api::Prepared) -> Result<Ran, Error> {
        let Some(cluster) = &self.cluster else {
            return Ok(Ran::Here);
        };
        if prepared.config.search.hunt.is_some() {
            return Err(Error::Usage(
                "--hunt runs its walks in one process (on --threads): leave out --processes and --local-processes".into(),
            ));
        }
        run(prepared, cluster)
    }

    /// Ends the session: waits for the processes it started (kills them
    /// first after an error of this one).
    pub(super) fn finish<T>(self, result: Result<T, Error>) -> Result<T, Error> {
        if let Some(c) = self.children {
            c.done.store(true, Ordering::SeqCst);
            // Wakes the watch from its pause, which every run's end waited
            // out (up to 50 ms of the whole command's time).
            c.watch.thread().unpark();
            let _ = c.watch.join();
            for (_, child) in c.list.lock().expect("not poisoned").iter_mut() {
                if result.is_err() {
                    let _ = child.kill();
                }
                let _ = child.wait();
            }
            let _ = std::fs::remove_dir_all(&c.dir);
        }
        result
    }
}

/// Worker threads per process of a command with `--threads`.
#[derive(Clone, Copy)]
pub(super) struct Workers {
    /// Under `--local-processes` (the machine's cores are shared by the
    /// processes): `--threads`, else one.
    local: usize,
    /// In a cluster: `--threads`, else every core of the host.
    cluster: usize,
}

impl Workers {
    pub(super) fn of(check: &CheckArgs, config: &CheckConfig) -> Workers {
        Workers {
            local: check.threads.unwrap_or(1),
            cluster: config.search.threads.max(1),
        }
    }
}

/// Runs one spec's check distributed where the arguments ask for it.
pub(super) fn check(
    spec: &SpecSource,
    config: &CheckConfig,
    check: &CheckArgs,
) -> Result<Ran, Error> {
    let args = &check.dist;
    if args.local_processes.is_some() {
        // What the distributed explorer refuses is refused before any
        // process starts.
        let prepared = api::prepare(spec, config)?;
        engine::refuse(&prepared)?;
    }
    let session = Session::start(args, Some(Workers::of(check, config)))?;
    let ran = match session.check(spec, config) {
        Ok(Ran::OneProcess(e)) => Err(e),
        ran => ran,
    };
    session.finish(ran)
}

fn run(prepared: api::Prepared, cluster: &Cluster) -> Result<Ran, Error> {
    Ok(match engine::check(prepared, cluster)? {
        Outcome::Report(report) => Ran::Report(report),
        Outcome::Peer(code) => Ran::Peer(code),
        Outcome::OneProcess(e) => Ran::OneProcess(e),
    })
}

/// Whether the distributed explorer refuses a prepared spec (hash
/// compaction, liveness of more than 64 threads): `verify` then checks
/// that expectation on process 0 alone, and says so.
pub(super) fn refused(prepared: &api::Prepared) -> bool {
    engine::refuse(prepared).is_err()
}

/// Checks that the host file names `processes` addresses.
fn hostfile_lines(path: &Path, processes: usize) -> Result<(), Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("--hostfile {}: {e}", path.display())))?;
    let n = text.lines().filter(|l| !l.trim().is_empty()).count();
    if n < processes {
        return Err(Error::Usage(format!(
            "--hostfile {}: {n} addresses for {processes} processes (one host:port a line, process 0 first)",
            path.display()
        )));
    }
    Ok(())
}

/// `--local-processes N`: this process is process 0; it starts the others
/// with the same arguments and a host file of free loopback ports.
fn local(n: usize, workers: Option<usize>, timeout: Duration) -> Result<Session, Error> {
    let dir = std::env::temp_dir().join(format!("gsync-dist-{}", std::process::id()));
    let fail = |e: std::io::Error| Error::Usage(format!("--local-processes: {e}"));
    std::fs::create_dir_all(&dir).map_err(fail)?;
    let hostfile = dir.join("hosts");
    std::fs::write(&hostfile, free_ports(n).map_err(fail)?).map_err(fail)?;
    let list = Arc::new(Mutex::new(Vec::new()));
    for i in 1..n {
        let child = spawn(i, n, &hostfile, workers).map_err(fail)?;
        list.lock().expect("not poisoned").push((i, child));
    }
    let done = Arc::new(AtomicBool::new(false));
    let watch = watch(Arc::clone(&list), Arc::clone(&done));
    let cluster = Cluster {
        processes: n,
        process: 0,
        hostfile: Some(hostfile),
        workers: workers.unwrap_or(1),
        connect_timeout: timeout,
    };
    Ok(Session {
        cluster: Some(cluster),
        children: Some(Children {
            list,
            done,
            watch,
            dir,
        }),
    })
}

/// `n` addresses of free loopback ports, one a line.
fn free_ports(n: usize) -> std::io::Result<String> {
    let listeners = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0"))
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut text = String::new();
    for l in &listeners {
        text.push_str(&format!("127.0.0.1:{}\n", l.local_addr()?.port()));
    }
    Ok(text)
}

/// Process `i` of `n`: this binary with this process's arguments, less
/// `--local-processes`, plus its place in the cluster. Its output is
/// dropped (timely reports connection retries there); errors show.
/// `workers`: its `--threads`, for a command that has it.
fn spawn(i: usize, n: usize, hostfile: &Path, workers: Option<usize>) -> std::io::Result<Child> {
    let mut args: Vec<String> = Vec::new();
    let mut skip = false;
    for a in std::env::args().skip(1) {
        if skip {
            skip = false;
        } else if a == "--local-processes" || a == "--threads" {
            skip = true;
        } else if !a.starts_with("--local-processes=") && !a.starts_with("--threads=") {
            args.push(a);
        }
    }
    let place = [
        "--processes".to_string(),
        n.to_string(),
        "--process".into(),
        i.to_string(),
        "--hostfile".into(),
        hostfile.display().to_string(),
    ];
    let threads = workers.map(|w| ["--threads".to_string(), w.to_string()]);
    Command::new(std::env::current_exe()?)
        .args(args)
        .args(place)
        .args(threads.into_iter().flatten())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
}

/// Ends the run with an error when a started process dies (killed, or a
/// failure other than a verdict or a refusal).
fn watch(
    children: Arc<Mutex<Vec<(usize, Child)>>>,
    done: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while !done.load(Ordering::SeqCst) {
            let mut list = children.lock().expect("not poisoned");
            for (i, child) in list.iter_mut() {
                let Ok(Some(status)) = child.try_wait() else {
                    continue;
                };
                if matches!(status.code(), Some(0..=3)) {
                    continue;
                }
                eprintln!(
                    "error: distributed run: process {i} (pid {}) ended: {status}; no verdict",
                    child.id()
                );
                for (_, other) in list.iter_mut() {
                    let _ = other.kill();
                }
                std::process::exit(EXIT_FAILED);
            }
            drop(list);
            std::thread::park_timeout(Duration::from_millis(50));
        }
    })
}
