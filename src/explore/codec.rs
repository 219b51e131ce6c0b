//! The stored form of a state: a compact byte string instead of its `u32`
//! words, and the hash of that form.
//!
//! Most words of a state are zero or tiny (program counters, flags, small
//! locals and counters, already wrapped to their declared width), so a
//! state of `w` words is written as
//!
//! ```text
//! [ bitmap: ceil(w / 8) bytes, bit i = word i is not zero ]
//! [ per nonzero word, in order: z < 255 ? z : 0xFF, z as 4 bytes LE ]
//! ```
//!
//! where `z` is the word zigzag-mapped as an `i32` (0, -1, 1, -2, ... to
//! 0, 1, 2, 3, ...), so that small negative values and `u32::MAX` (the pc
//! of a finished thread) take one byte too. Every word has exactly one
//! form, and decoding gives the words back, so the encoding is injective:
//! two states are equal exactly when their codes are. For a fixed `w` no
//! code is a proper prefix of another (the bitmap fixes how many words
//! follow, each word's first byte its length), which lets the store
//! compare a code with the bytes at a stored state's start without knowing
//! the stored code's length.

/// The longest code of a `words`-word state.
pub(super) fn max_len(words: usize) -> usize {
    words.div_ceil(8) + 5 * words
}

#[inline]
fn zigzag(w: u32) -> u32 {
    (w << 1) ^ ((w as i32 >> 31) as u32)
}

#[inline]
fn unzigzag(z: u32) -> u32 {
    (z >> 1) ^ (z & 1).wrapping_neg()
}

/// Escape byte: the next 4 bytes hold the zigzagged word.
const WIDE: u8 = 0xFF;

/// Appends the code of `state` to `out`.
///
/// Whether a word is zero is data the branch predictor cannot learn, so
/// the bitmap of 64 words at a time is computed without branches (8 words
/// at a time, which the compiler vectorizes), and the payload loop visits
/// the set bits only: one hard-to-predict loop exit per 64 words. The
/// bytes are written into room made for the longest code and the rest cut
/// off at the end: a push per byte would reload the vector's length and
/// capacity after every byte stored (a byte store may alias them), which
/// cost a third of the encoding's instructions.
#[inline]
pub(crate) fn encode(state: &[u32], out: &mut Vec<u8>) {
    let start = out.len();
    let len = encode_at(state, out, start);
    out.truncate(start + len);
}

/// Writes the code of `state` into `out` from byte `at` on and returns
/// its length; the bytes after it are left as they were. `out` only
/// grows, to room for the longest code: a buffer reused for many codes
/// (a chunk's successors) is zeroed once, not once a code.
#[inline]
pub(crate) fn encode_at(state: &[u32], out: &mut Vec<u8>, at: usize) -> usize {
    let end = at + max_len(state.len());
    if out.len() < end {
        out.resize(end, 0);
    }
    write_code(state, &mut out[at..])
}

/// Writes the code of `state` at the start of `buf` (at least
/// [`max_len`] long); returns its length.
#[inline]
fn write_code(state: &[u32], buf: &mut [u8]) -> usize {
    let mut at = state.len().div_ceil(8);
    for (c, words) in state.chunks(64).enumerate() {
        let mut mask = 0u64;
        for (g, group) in words.chunks(8).enumerate() {
            mask |= u64::from(nonzero_bits(group)) << (8 * g);
        }
        let n = words.len().div_ceil(8);
        buf[8 * c..8 * c + n].copy_from_slice(&mask.to_le_bytes()[..n]);
        while mask != 0 {
            let z = zigzag(words[mask.trailing_zeros() as usize]);
            mask &= mask - 1;
            if z < u32::from(WIDE) {
                buf[at] = z as u8;
                at += 1;
            } else {
                buf[at] = WIDE;
                buf[at + 1..at + 5].copy_from_slice(&z.to_le_bytes());
                at += 5;
            }
        }
    }
    at
}

/// Bit `i` set iff `group[i]` (at most 8 words) is not zero.
#[inline]
fn nonzero_bits(group: &[u32]) -> u8 {
    match <&[u32; 8]>::try_from(group) {
        Ok(full) => nonzero_bits_8(full),
        Err(_) => group
            .iter()
            .enumerate()
            .fold(0u8, |bits, (i, &w)| bits | u8::from(w != 0) << i),
    }
}

/// [`nonzero_bits`] of 8 words: two 4-word compares with zero and their
/// sign masks (SSE2, part of every x86-64).
#[cfg(target_arch = "x86_64")]
#[inline]
fn nonzero_bits_8(w: &[u32; 8]) -> u8 {
    #[target_feature(enable = "sse2")]
    fn zeros(a: u32, b: u32, c: u32, d: u32) -> i32 {
        use std::arch::x86_64::{
            _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_movemask_ps, _mm_set_epi32, _mm_setzero_si128,
        };
        let v = _mm_set_epi32(d as i32, c as i32, b as i32, a as i32);
        _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, _mm_setzero_si128())))
    }
    // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 CPU has it.
    let (lo, hi) = unsafe { (zeros(w[0], w[1], w[2], w[3]), zeros(w[4], w[5], w[6], w[7])) };
    !((lo | hi << 4) as u8)
}

/// [`nonzero_bits`] of 8 words: one 0/1 byte per word, gathered into one
/// byte by a multiply (byte i's bit lands on bit 56 + i).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn nonzero_bits_8(w: &[u32; 8]) -> u8 {
    let flags: [u8; 8] = std::array::from_fn(|i| u8::from(w[i] != 0));
    (u64::from_le_bytes(flags).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// Writes the state whose code starts `code` into `out` (its length is the
/// number of words); returns the code's length. Bytes after the code are
/// not read.
#[inline]
pub(crate) fn decode(code: &[u8], out: &mut [u32]) -> usize {
    let map = out.len().div_ceil(8);
    let mut at = map;
    out.fill(0);
    for (group, &bits) in out.chunks_mut(8).zip(&code[..map]) {
        let mut left = bits;
        while left != 0 {
            let i = left.trailing_zeros() as usize;
            left &= left - 1;
            let b = code[at];
            at += 1;
            let z = if b != WIDE {
                u32::from(b)
            } else {
                let z = u32::from_le_bytes(code[at..at + 4].try_into().expect("4 bytes"));
                at += 4;
                z
            };
            group[i] = unzigzag(z);
        }
    }
    at
}

/// Gives word `w`, zero in `code` (the code of a `words`-word state), the
/// value `value`: the code that encoding the state with it would give
/// (its bit set, its bytes inserted after those of the nonzero words
/// before it).
pub(super) fn set_zero_word(code: &mut Vec<u8>, words: usize, w: usize, value: u32) {
    let (byte, bit) = (w / 8, w % 8);
    debug_assert_eq!(code[byte] & (1 << bit), 0, "word {w} is not zero");
    if value == 0 {
        return;
    }
    let map = words.div_ceil(8);
    let after =
        u32::from(code[byte]) >> (bit + 1) != 0 || code[byte + 1..map].iter().any(|&b| b != 0);
    // With no nonzero word after it (the ids that end a packed state:
    // `parts`), its bytes end the code.
    let at = match after {
        false => code.len(),
        true => {
            let before = code[..byte].iter().map(|b| b.count_ones()).sum::<u32>()
                + (code[byte] & ((1u8 << bit) - 1)).count_ones();
            let mut at = map;
            for _ in 0..before {
                at += if code[at] == WIDE { 5 } else { 1 };
            }
            at
        }
    };
    code[byte] |= 1 << bit;
    let z = zigzag(value);
    if z < u32::from(WIDE) {
        code.insert(at, z as u8);
    } else {
        let mut wide = [WIDE; 5];
        wide[1..].copy_from_slice(&z.to_le_bytes());
        code.splice(at..at, wide);
    }
}

/// Hashes a code to 64 bits.
///
/// Codes are a hundred bytes or more, so the hash is limited by its
/// dependency chain, not by loads: four independent lanes each fold 16
/// bytes per multiply (a 64x64→128-bit product folded to 64 bits, the
/// long-input loop of foldhash and wyhash), so each lane's chain is one
/// multiply per 64 bytes. The tail and the lanes are finalized with
/// MurmurHash3's `fmix64`, so that every input bit reaches every output
/// bit: the hash doubles as the fingerprint of hash compaction. Fixed
/// constants, so fingerprints do not depend on a crate version or the
/// process.
#[inline]
pub(super) fn hash_code(code: &[u8]) -> u64 {
    const K: [u64; 5] = [
        0x243F_6A88_85A3_08D3,
        0x1319_8A2E_0370_7344,
        0xA409_3822_299F_31D0,
        0x082E_FA98_EC4E_6C89,
        0x4528_21E6_38D0_1377,
    ];
    let word = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let mut lanes = [K[0], K[1], K[2], K[3]];
    let mut blocks = code.chunks_exact(64);
    for b in &mut blocks {
        for (l, lane) in lanes.iter_mut().enumerate() {
            *lane = folded_multiply(word(b, 8 * l) ^ *lane, word(b, 8 * l + 32) ^ K[4]);
        }
    }
    let mut h = (code.len() as u64).wrapping_mul(K[4]);
    for lane in lanes {
        h = folded_multiply(h ^ lane, K[4]);
    }
    let rest = blocks.remainder();
    let mut words = rest.chunks_exact(8);
    for w in &mut words {
        h = folded_multiply(h ^ word(w, 0), K[1]);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut last = [0u8; 8];
        last[..tail.len()].copy_from_slice(tail);
        h = folded_multiply(h ^ u64::from_le_bytes(last), K[2]);
    }
    fmix64(h)
}

/// The 128-bit product of `a` and `b`, folded to 64 bits by xoring its halves.
#[inline]
fn folded_multiply(a: u64, b: u64) -> u64 {
    let full = u128::from(a) * u128::from(b);
    (full as u64) ^ ((full >> 64) as u64)
}

#[inline]
fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(state: &[u32]) -> Vec<u8> {
        let mut code = vec![7u8; 3]; // codes are appended
        encode(state, &mut code);
        let code = code.split_off(3);
        assert!(code.len() <= max_len(state.len()));
        let mut back = vec![1u32; state.len()];
        // Trailing bytes (the next stored state) are not read.
        let mut padded = code.clone();
        padded.extend_from_slice(&[0xFF; 9]);
        assert_eq!(decode(&padded, &mut back), code.len());
        assert_eq!(back, state);
        code
    }

    #[test]
    fn codes_round_trip_and_are_small() {
        round_trip(&[]);
        let edges = [0, 1, 2, 63, 64, 127, 128, 255, 256, u32::MAX, u32::MAX - 1];
        let edges2 = [i32::MAX as u32, i32::MIN as u32, 1 << 31 | 5, 0x8000];
        let all: Vec<u32> = edges.iter().chain(&edges2).copied().collect();
        round_trip(&all);
        for w in 1..20 {
            round_trip(&all[..w.min(all.len())]);
        }
        // Zeros cost one bit, small values and -1 one byte.
        assert_eq!(round_trip(&[0; 16]).len(), 2);
        assert_eq!(
            round_trip(&[0, 5, u32::MAX, 0, 0, 0, 0, 0, 63]).len(),
            2 + 3
        );
        assert_eq!(round_trip(&[128]).len(), 1 + 5);
    }

    #[test]
    fn long_sparse_states_round_trip() {
        // Several 64-word bitmap blocks and a partial last group, with
        // zero, small, negative and wide words scattered by a simple LCG.
        let mut x = 12345u64;
        for words in [63, 64, 65, 200, 231] {
            let state: Vec<u32> = (0..words)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    match x >> 61 {
                        0..=3 => 0,
                        4 => (x >> 40) as u32 % 100,
                        5 => u32::MAX - (x >> 40) as u32 % 3,
                        _ => (x >> 20) as u32,
                    }
                })
                .collect();
            round_trip(&state);
        }
    }

    #[test]
    fn distinct_states_have_distinct_codes_and_no_code_prefixes_another() {
        // All states of 3 words over a value set with every code width.
        let values = [0, 1, 2, 127, 128, u32::MAX, 1 << 31, 300];
        let mut codes = std::collections::HashMap::new();
        for a in values {
            for b in values {
                for c in values {
                    let code = round_trip(&[a, b, c]);
                    assert!(codes.insert(code, [a, b, c]).is_none());
                }
            }
        }
        for x in codes.keys() {
            for y in codes.keys() {
                assert!(x == y || !y.starts_with(x), "{x:?} prefixes {y:?}");
            }
        }
    }

    #[test]
    fn setting_a_zero_word_gives_the_states_code() {
        let values = [1, 2, 254, 255, u32::MAX, 1 << 31, 300];
        for words in [1, 7, 8, 9, 20, 70] {
            let base: Vec<u32> = (0..words as u32)
                .map(|i| [0, 3, 0, 400, 9][i as usize % 5])
                .collect();
            for w in (0..words).filter(|&w| base[w] == 0) {
                for v in values {
                    let mut code = Vec::new();
                    encode(&base, &mut code);
                    set_zero_word(&mut code, words, w, v);
                    let mut state = base.clone();
                    state[w] = v;
                    let mut want = Vec::new();
                    encode(&state, &mut want);
                    assert_eq!(code, want, "{words} words, word {w} = {v}");
                }
            }
        }
    }

    #[test]
    fn hash_depends_on_every_byte_and_the_length() {
        let base: Vec<u8> = (0..150u8).collect();
        let h = hash_code(&base);
        for i in 0..base.len() {
            let mut b = base.clone();
            b[i] ^= 1;
            assert_ne!(hash_code(&b), h, "byte {i}");
            assert_ne!(hash_code(&base[..i]), h);
        }
        assert_ne!(hash_code(&[0]), hash_code(&[0, 0]));
    }
}
