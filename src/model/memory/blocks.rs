//! The `ptx` model's words as symmetry reduction sees them: which are per
//! block (a block's threads' views and flags, its sc-fence view, the
//! histories of its copies of `shared` variables), and how renaming blocks
//! changes the rest (the writers named in messages, the view entries of
//! shared locations, block ids stored as written values).

use super::layout::*;
use super::PtxMemory;
use crate::ir::Storage;

/// A per-block run of words: `len` words at `base + block * stride`.
#[derive(Clone, Copy, Debug)]
pub struct BlockRun {
    pub base: usize,
    pub len: usize,
    pub stride: usize,
}

/// What symmetry reduction needs to permute the model's words.
#[derive(Clone, Debug)]
pub struct BlockWords {
    sec: Sections,
    tpb: usize,
    /// Shared variables: (location of block 0's first element, elements).
    shared: Vec<(usize, usize)>,
}

impl PtxMemory {
    pub fn block_words(&self, prog: &crate::ir::Program, var_base: &[usize]) -> BlockWords {
        let shared = prog
            .vars
            .iter()
            .enumerate()
            .filter(|(_, v)| v.storage == Storage::Shared)
            .map(|(i, v)| (var_base[i], v.len as usize))
            .collect();
        BlockWords {
            sec: self.sec.clone(),
            tpb: self.tpb,
            shared,
        }
    }
}

impl BlockWords {
    /// The per-block runs of words, each moved whole with its block.
    pub fn runs(&self) -> Vec<BlockRun> {
        let sec = &self.sec;
        let run = |base, len| BlockRun {
            base,
            len,
            stride: len,
        };
        let mut runs = vec![
            run(sec.thread_view(0, CUR), self.tpb * sec.thread_words),
            run(sec.sc_view(Some(0)), sec.vw),
        ];
        for &(first, len) in &self.shared {
            runs.push(run(sec.len_word(first), len * sec.loc_words));
        }
        runs
    }

    /// The histories of the global locations `base + u * stride ..+ len`
    /// (one run per owner `u`), moved with the words they describe.
    pub fn history(&self, base: usize, len: usize, stride: usize) -> BlockRun {
        let lw = self.sec.loc_words;
        BlockRun {
            base: self.sec.len_word(base),
            len: len * lw,
            stride: stride * lw,
        }
    }

    /// Moves the view entries of global locations along with their words
    /// (`moves`: from, to); `tmp` is scratch.
    pub fn move_view_entries(&self, s: &mut [u32], moves: &[(usize, usize)], tmp: &mut Vec<usize>) {
        for view in self.sec.all_views() {
            tmp.clear();
            tmp.extend(moves.iter().map(|(from, _)| get(s, view, *from)));
            for ((_, to), v) in moves.iter().zip(tmp.iter()) {
                set(s, view, *to, *v);
            }
        }
    }

    /// After the runs were moved (block `b` to `perm[b]`): renames the
    /// writers of messages, moves the view entries of shared locations with
    /// their blocks, and maps each written value of location `x` through
    /// `value(x, raw)` (block ids held in memory).
    pub fn rename(&self, s: &mut [u32], perm: &[u32], value: &dyn Fn(usize, u32) -> u32) {
        let sec = &self.sec;
        for x in 0..sec.locs {
            for p in 0..s[sec.len_word(x)] as usize {
                let msg = sec.msg(x, p);
                s[msg] = value(x, s[msg]);
                let meta = s[msg + MSG_META];
                if let Some(w) = writer(meta).filter(|&w| w != FORGOTTEN_WRITER) {
                    let t = perm[w / self.tpb] as usize * self.tpb + w % self.tpb;
                    s[msg + MSG_META] = with_writer(meta, t);
                }
            }
        }
        if self.shared.is_empty() {
            return;
        }
        let blocks = perm.len();
        let mut moved = Vec::new();
        for view in sec.all_views() {
            for &(first, len) in &self.shared {
                moved.clear();
                moved.extend((0..blocks * len).map(|i| get(s, view, first + i)));
                for (b, &to) in perm.iter().enumerate() {
                    for i in 0..len {
                        set(s, view, first + to as usize * len + i, moved[b * len + i]);
                    }
                }
            }
        }
    }
}
