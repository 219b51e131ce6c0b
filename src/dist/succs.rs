//! Successors' states as they travel to their owners: to a worker of the
//! same process their words (timely hands the vector over, nothing is
//! serialized), to another process's their wire forms
//! (`StateStore::encode_wire`, compact codes): on loopback TCP, bytes cost
//! more than the encoding (#43: `priority_semaphore --blocks 5` on 4
//! processes took 11% less CPU, user and system, on the 2-core VM), and
//! the receiver stores a wire form without decoding it. Words travel as
//! one byte string (`words_as_bytes`, also for the other records of words).

use serde::{Deserialize, Serialize};

/// The states of a record of successors, one after another.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum States {
    Words(#[serde(with = "words_as_bytes")] Vec<u32>),
    /// Each state's wire form behind its [`HEADER`].
    Wires(#[serde(with = "serde_bytes")] Vec<u8>),
}

/// Bytes before a wire form: its length and whether the state is final
/// (the receiver has no words to tell), `length << 1 | final`.
const HEADER: usize = 3;

/// A state as it came: its words, or its wire form and whether it is
/// final.
pub(super) enum Incoming<'a> {
    Words(&'a [u32]),
    Wire(&'a [u8], bool),
}

impl States {
    /// No states, for a worker of this process (`coded`: of another),
    /// with room for `bytes` bytes.
    pub(super) fn with_room(coded: bool, bytes: usize) -> Self {
        match coded {
            false => States::Words(Vec::with_capacity(bytes / 4)),
            true => States::Wires(Vec::with_capacity(bytes)),
        }
    }

    /// Empty ones of the same kind, with room for as many bytes.
    pub(super) fn emptied(&self) -> Self {
        Self::with_room(matches!(self, States::Wires(_)), self.capacity())
    }

    /// Appends `state`: its words, or the wire form `wire` writes, with
    /// whether `is_final`.
    pub(super) fn push(
        &mut self,
        state: &[u32],
        (wire, is_final): (impl FnOnce(&mut Vec<u8>), impl FnOnce() -> bool),
    ) {
        match self {
            States::Words(w) => w.extend_from_slice(state),
            States::Wires(c) => {
                let start = c.len();
                c.extend_from_slice(&[0; HEADER]);
                wire(c);
                let len = c.len() - start - HEADER;
                let header = len << 1 | usize::from(is_final());
                assert!(
                    header < 1 << (8 * HEADER),
                    "a state's wire form within 8 MiB"
                );
                c[start..start + HEADER].copy_from_slice(&header.to_le_bytes()[..HEADER]);
            }
        }
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        match self {
            States::Words(w) => 4 * w.len(),
            States::Wires(c) => c.len(),
        }
    }

    fn capacity(&self) -> usize {
        match self {
            States::Words(w) => 4 * w.capacity(),
            States::Wires(c) => c.capacity(),
        }
    }

    /// Reads the states in order.
    pub(super) fn reader(&self) -> Reader<'_> {
        Reader {
            states: self,
            at: 0,
        }
    }
}

/// Where reading a record's states has got to.
pub(super) struct Reader<'a> {
    states: &'a States,
    at: usize,
}

impl<'a> Reader<'a> {
    /// The next state, of `words` words.
    pub(super) fn next(&mut self, words: usize) -> Incoming<'a> {
        match self.states {
            States::Words(w) => {
                let state = &w[self.at..self.at + words];
                self.at += words;
                Incoming::Words(state)
            }
            States::Wires(c) => {
                let mut header = [0; 4];
                header[..HEADER].copy_from_slice(&c[self.at..self.at + HEADER]);
                let header = u32::from_le_bytes(header) as usize;
                let start = self.at + HEADER;
                self.at = start + (header >> 1);
                Incoming::Wire(&c[start..self.at], header & 1 == 1)
            }
        }
    }
}

/// Words as one byte string (little-endian): bincode writes a `Vec<u32>`
/// a word at a time, which was a tenth of a worker's time between
/// processes, and a byte string at once.
pub(super) mod words_as_bytes {
    use serde::de::{Deserializer, Error, Visitor};
    use serde::Serializer;

    pub(in crate::dist) fn serialize<S: Serializer>(
        words: &[u32],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        if cfg!(target_endian = "little") {
            // SAFETY: the bytes of the words' own memory, `4 * len` of them
            // (u8 has no alignment to keep).
            let bytes = unsafe {
                std::slice::from_raw_parts(
                    words.as_ptr().cast::<u8>(),
                    std::mem::size_of_val(words),
                )
            };
            return s.serialize_bytes(bytes);
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        s.serialize_bytes(&bytes)
    }

    pub(in crate::dist) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<u32>, D::Error> {
        d.deserialize_bytes(Words)
    }

    struct Words;

    impl Visitor<'_> for Words {
        type Value = Vec<u32>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a byte string of 32-bit words")
        }

        fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<u32>, E> {
            if !bytes.len().is_multiple_of(4) {
                return Err(E::invalid_length(bytes.len(), &self));
            }
            let n = bytes.len() / 4;
            if cfg!(target_endian = "little") {
                // One copy of the bytes, where a word at a time was a
                // fortieth of a worker's time among eight processes.
                let mut words = Vec::<u32>::with_capacity(n);
                // SAFETY: `4 * n` bytes fit the capacity reserved; every
                // bit pattern is a u32, so the `n` words are initialized.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        bytes.as_ptr(),
                        words.as_mut_ptr().cast::<u8>(),
                        4 * n,
                    );
                    words.set_len(n);
                }
                return Ok(words);
            }
            let word = |c: &[u8]| u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            Ok(bytes.chunks_exact(4).map(word).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::StateStore;

    /// Both kinds give back the states pushed (tests/distributed.rs sends
    /// them between processes): a wire form, as the receiver's store
    /// takes it, with whether the state is final.
    #[test]
    fn states_read_back_as_pushed() {
        let states: Vec<Vec<u32>> = vec![
            vec![0, 1, u32::MAX, 7, 0, 0, 300, 1 << 31, 2],
            vec![0; 9],
            vec![5, 4, 3, 2, 1, 0, 0xFFFF_FFFE, 255, 256],
        ];
        let history = || std::iter::once(2..5).collect();
        let sender = StateStore::new(9).with_parts(history());
        for coded in [false, true] {
            let mut out = States::with_room(coded, 0);
            for (i, s) in states.iter().enumerate() {
                out.push(s, (|c: &mut Vec<u8>| sender.encode_wire(s, c), || i == 1));
            }
            let mut receiver = StateStore::new(9).with_parts(history());
            let mut reader = out.reader();
            for (i, s) in states.iter().enumerate() {
                match reader.next(9) {
                    Incoming::Words(w) => assert_eq!(w, &s[..]),
                    Incoming::Wire(wire, is_final) => {
                        assert!(coded);
                        assert_eq!(is_final, i == 1);
                        let id = receiver.insert_wire_bounded(wire, 10);
                        assert_eq!(id, crate::explore::Slot::New(i as u32));
                        assert_eq!(receiver.get(i as u32), *s);
                    }
                }
            }
        }
    }
}
