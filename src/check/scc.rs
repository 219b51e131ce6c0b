//! Strongly connected components without recursion.
//!
//! A state graph's depth-first paths run through millions of states (a
//! spinning block's every stale read is a step), so a recursive Tarjan,
//! petgraph's `TarjanScc` among them, overflows the stack on them
//! (`priority_semaphore --blocks 3 --iters 0 --scheduler fair` under `ptx`
//! did). This is Tarjan's algorithm with the recursion kept on the heap:
//! the same depth-first order (nodes by index, each node's successors in
//! the order given), so the components come out in the same order, each
//! as soon as its root is finished (reverse topological order).
//! (`explore::proviso` has its own, specialized: terminal components only,
//! within a byte budget, numbered in one array.)

const UNVISITED: u32 = u32::MAX;

/// One node being visited: its successors are `succs[start..end]` of
/// [`components`]' shared list, those from `next` on still to look at.
struct Frame {
    node: usize,
    start: usize,
    next: usize,
    end: usize,
}

/// The search's state: per node its discovery index and low link, and
/// whether it is on the stack of nodes not yet in a component.
struct Search {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    frames: Vec<Frame>,
    succs: Vec<usize>,
    counter: u32,
}

impl Search {
    /// Starts visiting `v`.
    fn enter(&mut self, v: usize, successors: &mut impl FnMut(usize, &mut Vec<usize>)) {
        self.index[v] = self.counter;
        self.low[v] = self.counter;
        self.counter += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        let start = self.succs.len();
        successors(v, &mut self.succs);
        self.frames.push(Frame {
            node: v,
            start,
            next: start,
            end: self.succs.len(),
        });
    }
}

/// Calls `found` with every strongly connected component of the graph of
/// `n` nodes whose successors `successors(v, out)` appends to `out`.
pub(super) fn components(
    n: usize,
    mut successors: impl FnMut(usize, &mut Vec<usize>),
    mut found: impl FnMut(&[usize]),
) {
    let mut q = Search {
        index: vec![UNVISITED; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        frames: Vec::new(),
        succs: Vec::new(),
        counter: 0,
    };
    for root in 0..n {
        if q.index[root] != UNVISITED {
            continue;
        }
        q.enter(root, &mut successors);
        while let Some(frame) = q.frames.last_mut() {
            let v = frame.node;
            if frame.next < frame.end {
                let w = q.succs[frame.next];
                frame.next += 1;
                if q.index[w] == UNVISITED {
                    q.enter(w, &mut successors);
                } else if q.on_stack[w] {
                    q.low[v] = q.low[v].min(q.index[w]);
                }
                continue;
            }
            // `v` is finished: its successors are done with (the frames
            // above it have gone, so they are the last in the list).
            let start = frame.start;
            q.frames.pop();
            q.succs.truncate(start);
            if let Some(parent) = q.frames.last() {
                q.low[parent.node] = q.low[parent.node].min(q.low[v]);
            }
            if q.low[v] == q.index[v] {
                let at = q
                    .stack
                    .iter()
                    .rposition(|&u| u == v)
                    .expect("v is on the stack");
                for &u in &q.stack[at..] {
                    q.on_stack[u] = false;
                }
                found(&q.stack[at..]);
                q.stack.truncate(at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::components;

    fn sccs(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        components(
            n,
            |v, succ| succ.extend(edges.iter().filter(|e| e.0 == v).map(|e| e.1)),
            |c| {
                let mut c = c.to_vec();
                c.sort_unstable();
                out.push(c);
            },
        );
        out
    }

    #[test]
    fn components_come_out_in_reverse_topological_order() {
        // 0 -> {1, 2} -> 3 -> 4 -> 3, and 5 alone with a self-loop.
        let edges = [(0, 1), (1, 2), (2, 1), (1, 3), (3, 4), (4, 3), (5, 5)];
        assert_eq!(
            sccs(6, &edges),
            vec![vec![3, 4], vec![1, 2], vec![0], vec![5]]
        );
    }

    #[test]
    fn a_path_of_a_million_nodes_does_not_overflow_the_stack() {
        let n = 1_000_000;
        let mut count = 0;
        let mut largest = 0;
        components(
            n,
            // A path, closed into one cycle by the last node.
            |v, succ| succ.push((v + 1) % n),
            |c| {
                count += 1;
                largest = largest.max(c.len());
            },
        );
        assert_eq!((count, largest), (1, n));
    }

    #[test]
    fn agrees_with_petgraph_on_a_random_graph() {
        use petgraph::graph::{DiGraph, NodeIndex};
        let n = 300;
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let edges: Vec<(usize, usize)> = (0..600).map(|_| (next() % n, next() % n)).collect();
        let mut g: DiGraph<(), ()> = DiGraph::new();
        for _ in 0..n {
            g.add_node(());
        }
        for &(a, b) in &edges {
            g.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
        }
        let mut theirs = Vec::new();
        petgraph::algo::TarjanScc::new().run(&g, |c: &[NodeIndex]| {
            let mut c: Vec<usize> = c.iter().map(|v| v.index()).collect();
            c.sort_unstable();
            theirs.push(c);
        });
        let mut ours = Vec::new();
        components(
            n,
            |v, succ| succ.extend(g.neighbors(NodeIndex::new(v)).map(|w| w.index())),
            |c| {
                let mut c = c.to_vec();
                c.sort_unstable();
                ours.push(c);
            },
        );
        assert_eq!(ours, theirs);
    }
}
