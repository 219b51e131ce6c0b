//! A state's form on its way to another store of the same system (the
//! distributed search's successors for a worker of another process):
//! each part's code (`codec`, `parts`) behind its length, then the code
//! of the packed state with every part's id zero. The receiving store
//! interns the parts by their codes and writes their ids into that code
//! (they end a packed state, so their bytes end its code), which is then
//! the code it stores: decoding the state's words and coding them again,
//! packed, made a distributed run's coding nearly twice one process's
//! (#43). Without parts the wire form is the stored code itself.

use std::ops::Range;

use super::codec;

/// Bytes that hold the length of a code of `words` words: the fewest
/// for its longest code, which both ends know.
fn length_bytes(words: usize) -> usize {
    (codec::max_len(words).max(1).ilog2() / 8 + 1) as usize
}

/// Appends the wire form of `state`, whose parts are at `ranges` (at
/// least one); `packed` is room for the packed state.
pub(super) fn encode(
    state: &[u32],
    ranges: &[Range<usize>],
    packed: &mut Vec<u32>,
    out: &mut Vec<u8>,
) {
    packed.clear();
    let mut at = 0;
    for r in ranges {
        let n = length_bytes(r.len());
        let start = out.len();
        out.extend_from_slice(&[0; 8][..n]);
        codec::encode(&state[r.clone()], out);
        let len = out.len() - start - n;
        out[start..start + n].copy_from_slice(&(len as u64).to_le_bytes()[..n]);
        packed.extend_from_slice(&state[at..r.start]);
        at = r.end;
    }
    packed.extend_from_slice(&state[at..]);
    packed.resize(packed.len() + ranges.len(), 0);
    codec::encode(packed, out);
}

/// Writes into `code` the stored code of the state whose wire form is
/// `wire` (all of it), for states of `words` words whose parts are at
/// `ranges` (at least one); `id(k, code)` gives the id of part `k`'s
/// content of code `code`. `ids` is room.
pub(super) fn to_code(
    wire: &[u8],
    (words, ranges): (usize, &[Range<usize>]),
    ids: &mut Vec<u32>,
    code: &mut Vec<u8>,
    mut id: impl FnMut(usize, &[u8]) -> u32,
) {
    let mut at = 0;
    ids.clear();
    for (k, r) in ranges.iter().enumerate() {
        let n = length_bytes(r.len());
        let mut len = [0; 8];
        len[..n].copy_from_slice(&wire[at..at + n]);
        let len = u64::from_le_bytes(len) as usize;
        at += n;
        ids.push(id(k, &wire[at..at + len]));
        at += len;
    }
    code.clear();
    code.extend_from_slice(&wire[at..]);
    let packed_words = words - ranges.iter().map(|r| r.len() - 1).sum::<usize>();
    let first_id = packed_words - ranges.len();
    for (k, &id) in ids.iter().enumerate() {
        codec::set_zero_word(code, packed_words, first_id + k, id);
    }
}
