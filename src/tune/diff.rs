//! A unified diff of two texts, line by line (a longest common
//! subsequence; specs are small), with three lines of context.

use crate::report::LineReplacement;

const CONTEXT: usize = 3;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Same,
    Del,
    Add,
}

/// The edit script from `a` to `b`: (op, index in a, index in b). The
/// common head and tail are matched first; a middle too large for the
/// quadratic table is all deleted, then all added.
fn script(a: &[&str], b: &[&str]) -> Vec<(Op, usize, usize)> {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (n, m) = (a.len() - tail, b.len() - tail);
    let mut out: Vec<(Op, usize, usize)> = (0..head).map(|k| (Op::Same, k, k)).collect();
    if (n - head).saturating_mul(m - head) > 4_000_000 {
        out.extend((head..n).map(|i| (Op::Del, i, head)));
        out.extend((head..m).map(|j| (Op::Add, n, j)));
    } else {
        middle(a, b, head, n, m, &mut out);
    }
    out.extend((0..tail).map(|k| (Op::Same, n + k, m + k)));
    out
}

/// The script of `a[head..n]` to `b[head..m]` by a longest common subsequence.
fn middle(
    a: &[&str],
    b: &[&str],
    head: usize,
    n: usize,
    m: usize,
    out: &mut Vec<(Op, usize, usize)>,
) {
    // lcs[i][j]: the longest common subsequence of a[head + i..n] and b[head + j..m].
    let (rows, cols) = (n - head, m - head);
    let mut lcs = vec![vec![0u32; cols + 1]; rows + 1];
    for i in (0..rows).rev() {
        for j in (0..cols).rev() {
            lcs[i][j] = if a[head + i] == b[head + j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < rows || j < cols {
        if i < rows && j < cols && a[head + i] == b[head + j] {
            out.push((Op::Same, head + i, head + j));
            i += 1;
            j += 1;
        } else if i < rows && (j == cols || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push((Op::Del, head + i, head + j));
            i += 1;
        } else {
            out.push((Op::Add, head + i, head + j));
            j += 1;
        }
    }
}

/// `diff -u` of `old` and `new`, headed by the two names; empty when the
/// texts are equal.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = script(&a, &b);
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != Op::Same).collect();
    if changed.is_empty() {
        return String::new();
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    let mut k = 0;
    while k < changed.len() {
        // A hunk: changes closer than twice the context share one.
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT {
            end = changed[k];
            k += 1;
        }
        let end = (end + CONTEXT + 1).min(ops.len());
        hunk(&mut out, &ops[start..end], &a, &b);
    }
    out
}

/// The changes from `old` to `new` as replacements of whole lines of
/// `old`: each run of deleted and added lines is one.
pub fn line_replacements(old: &str, new: &str) -> Vec<LineReplacement> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // (first line of `a`, lines deleted, text inserted)
    let mut runs: Vec<(usize, usize, String)> = Vec::new();
    let mut open = false;
    for (op, i, j) in script(&a, &b) {
        match op {
            Op::Same => open = false,
            _ if !open => {
                runs.push((i, 0, String::new()));
                open = true;
            }
            _ => {}
        }
        let Some(run) = runs.last_mut().filter(|_| open) else {
            continue;
        };
        match op {
            Op::Del => run.1 += 1,
            _ => {
                run.2.push_str(b[j]);
                run.2.push('\n');
            }
        }
    }
    let width = a.last().map_or(0, |l| l.chars().count() as u32);
    let last = a.len().max(1) as u32;
    runs.into_iter()
        .map(|(i, deleted, mut inserted)| {
            let start = (i as u32 + 1, 1);
            let (start, end) = if i + deleted < a.len() {
                (start, ((i + deleted) as u32 + 1, 1))
            } else if deleted > 0 {
                // Up to the end of the last line: its newline stays.
                inserted.pop();
                (start, (last, width + 1))
            } else {
                // Appended after the last line: after its end.
                inserted.pop();
                inserted.insert(0, '\n');
                ((last, width + 1), (last, width + 1))
            };
            LineReplacement {
                start_line: start.0,
                start_column: start.1,
                end_line: end.0,
                end_column: end.1,
                inserted,
            }
        })
        .collect()
}

fn hunk(out: &mut String, ops: &[(Op, usize, usize)], a: &[&str], b: &[&str]) {
    let count = |skip: Op| ops.iter().filter(|o| o.0 != skip).count();
    let (old_len, new_len) = (count(Op::Add), count(Op::Del));
    let (_, i0, j0) = ops[0];
    let start = |at: usize, len: usize| if len == 0 { at } else { at + 1 };
    out.push_str(&format!(
        "@@ -{},{old_len} +{},{new_len} @@\n",
        start(i0, old_len),
        start(j0, new_len)
    ));
    for &(op, i, j) in ops {
        match op {
            Op::Same => out.push_str(&format!(" {}\n", a[i])),
            Op::Del => out.push_str(&format!("-{}\n", a[i])),
            Op::Add => out.push_str(&format!("+{}\n", b[j])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_changed() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        let d = unified(old, new, "x", "y");
        assert_eq!(
            d,
            "--- x\n+++ y\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
        assert!(unified(old, old, "x", "y").is_empty());
    }

    #[test]
    fn line_replacements_cover_insertions_and_changes() {
        let r = line_replacements("a\nb\nc\n", "a\nx\nb\nC\n");
        let got = |r: Vec<LineReplacement>| -> Vec<(u32, u32, u32, u32, String)> {
            r.into_iter()
                .map(|r| {
                    (
                        r.start_line,
                        r.start_column,
                        r.end_line,
                        r.end_column,
                        r.inserted,
                    )
                })
                .collect()
        };
        // x inserted before line 2 (an empty region); line 3, the last,
        // replaced up to its end (its newline kept).
        assert_eq!(
            got(r),
            [(2, 1, 2, 1, "x\n".into()), (3, 1, 3, 2, "C".into())]
        );
        let appended = line_replacements("a\nb\n", "a\nb\nc\n");
        assert_eq!(got(appended), [(2, 2, 2, 2, "\nc".into())]);
    }

    #[test]
    fn removed_line() {
        let d = unified("a\nb\nc\n", "a\nc\n", "x", "y");
        assert_eq!(d, "--- x\n+++ y\n@@ -1,3 +1,2 @@\n a\n-b\n c\n");
    }
}
