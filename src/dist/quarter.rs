//! Vectors of a worker's states and edges that grow by a quarter where a
//! `Vec` doubles: their room beyond their contents is never written, so
//! not resident, but the heap counts it, and with it `--stats` and
//! `--max-memory` (#43: a worker's edges at 7 blocks, 8 × 2, held room for
//! twice as many as they had). Growing a block of a mebibyte or more moves
//! its pages without a copy (`explore::heap::map_large_blocks`).

/// The least a vector grows by, in entries.
const LEAST: usize = 1024;

/// Pushes `item` onto `v`, making room for a quarter more entries first
/// if it is full.
pub(super) fn push<T>(v: &mut Vec<T>, item: T) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 4).max(LEAST));
    }
    v.push(item);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_vector_grows_by_a_quarter_and_keeps_its_entries() {
        let mut v = Vec::new();
        for i in 0..100_000u32 {
            push(&mut v, i);
            // Room for at most a quarter more (and the least step) beyond
            // what it held when it last grew.
            assert!(v.capacity() <= (v.len() + v.len() / 4).max(LEAST) + LEAST);
        }
        assert!(v.iter().copied().eq(0..100_000));
    }
}
