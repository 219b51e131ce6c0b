//! The processes of a run connect to each other before timely starts.
//!
//! Process `i` listens on its own address, dials every process below it
//! and accepts every process above it, with timely's handshake (the
//! dialler's index, eight bytes big-endian, first on the stream), and the
//! connected streams are handed to timely
//! (`initialize_networking_from_sockets`). timely's own start-up does the
//! same but sleeps a whole second whenever a dial fails or no connection
//! is waiting, which it nearly always does once per run: a distributed
//! check of a small spec spent most of its time there (a family of eight
//! variants about ten seconds on two processes). Here the waits start at
//! a millisecond and grow to a tenth of a second.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// The longest pause between two attempts.
const MAX_PAUSE: Duration = Duration::from_millis(100);

/// Streams to every other process, indexed by process (`None` at `me`),
/// or `TimedOut` when they have not all connected within `timeout`.
pub(crate) fn sockets(
    addresses: &[String],
    me: usize,
    timeout: Duration,
) -> io::Result<Vec<Option<TcpStream>>> {
    let deadline = Instant::now() + timeout;
    // Listen first, so that the processes above can dial while this one
    // dials those below.
    let listeners = addresses[me]
        .split_whitespace()
        .map(TcpListener::bind)
        .collect::<io::Result<Vec<_>>>()?;
    let mut streams: Vec<Option<TcpStream>> = Vec::with_capacity(addresses.len());
    for address in &addresses[..me] {
        streams.push(Some(dial(address, me, deadline)?));
    }
    streams.push(None);
    streams.extend(accept(&listeners, addresses.len() - me - 1, me, deadline)?);
    Ok(streams)
}

/// A stream to `address`, once it listens, that has said who dialled.
fn dial(address: &str, me: usize, deadline: Instant) -> io::Result<TcpStream> {
    let mut pause = Backoff::new(deadline);
    loop {
        match TcpStream::connect(address) {
            Ok(mut stream) => {
                stream.set_nodelay(true)?;
                stream.write_all(&(me as u64).to_be_bytes())?;
                return Ok(stream);
            }
            Err(_) => pause.wait()?,
        }
    }
}

/// The `count` processes above `me`, in order, as they dial in.
fn accept(
    listeners: &[TcpListener],
    count: usize,
    me: usize,
    deadline: Instant,
) -> io::Result<Vec<Option<TcpStream>>> {
    for listener in listeners {
        listener.set_nonblocking(true)?;
    }
    let mut streams: Vec<Option<TcpStream>> = (0..count).map(|_| None).collect();
    let mut pause = Backoff::new(deadline);
    while streams.iter().any(Option::is_none) {
        let mut received = false;
        for listener in listeners {
            match listener.accept() {
                Ok((mut stream, _)) => {
                    stream.set_nonblocking(false)?;
                    stream.set_nodelay(true)?;
                    // A peer that connects and says nothing cannot hold
                    // the start past the deadline.
                    let left = deadline.saturating_duration_since(Instant::now());
                    stream.set_read_timeout(Some(left.max(Duration::from_millis(1))))?;
                    let mut index = [0u8; 8];
                    stream.read_exact(&mut index)?;
                    stream.set_read_timeout(None)?;
                    let slot = (u64::from_be_bytes(index) as usize)
                        .checked_sub(me + 1)
                        .and_then(|i| streams.get_mut(i))
                        .ok_or_else(|| {
                            io::Error::new(io::ErrorKind::InvalidData, "an unknown process dialled")
                        })?;
                    *slot = Some(stream);
                    received = true;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        if received {
            pause = Backoff::new(deadline);
        } else {
            pause.wait()?;
        }
    }
    Ok(streams)
}

/// Pauses that double from a millisecond up to `MAX_PAUSE`, until the
/// deadline.
struct Backoff {
    pause: Duration,
    deadline: Instant,
}

impl Backoff {
    fn new(deadline: Instant) -> Self {
        Backoff {
            pause: Duration::from_millis(1),
            deadline,
        }
    }

    fn wait(&mut self) -> io::Result<()> {
        let now = Instant::now();
        if now >= self.deadline {
            return Err(io::ErrorKind::TimedOut.into());
        }
        std::thread::sleep(self.pause.min(self.deadline - now));
        self.pause = (self.pause * 2).min(MAX_PAUSE);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free_addresses(n: usize) -> Vec<String> {
        let held: Vec<_> = (0..n)
            .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
            .collect();
        held.iter()
            .map(|l| l.local_addr().unwrap().to_string())
            .collect()
    }

    #[test]
    fn three_processes_connect_each_pair_once() {
        let addresses = free_addresses(3);
        let handles: Vec<_> = (0..3)
            .map(|me| {
                let addresses = addresses.clone();
                std::thread::spawn(move || sockets(&addresses, me, Duration::from_secs(10)))
            })
            .collect();
        for (me, h) in handles.into_iter().enumerate() {
            let streams = h.join().unwrap().expect("connected");
            assert_eq!(streams.len(), 3);
            for (other, s) in streams.iter().enumerate() {
                assert_eq!(s.is_none(), other == me, "process {me}, stream {other}");
            }
        }
    }

    #[test]
    fn a_missing_process_times_out() {
        let addresses = free_addresses(2);
        let started = Instant::now();
        let err = sockets(&addresses, 1, Duration::from_millis(300)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}
