//! A generator of small spec programs for the reduction cross-checks
//! (`tests/generated.rs`): seeded and deterministic, written as spec text.
//!
//! A program is 2–3 blocks (`harness master`, one thread each), or now
//! and then 2–3 threads sharing a block (`harness all`, some variables
//! `shared`), over 1–3 `u32` variables, in one of the shapes that are interesting under
//! weak memory — message passing, store buffering (Dekker's entry), a spin
//! lock, a flag handshake, a counter barrier — or a random mix of
//! statements. Every access is drawn from the language's forms: plain and
//! `volatile` accesses, `load`/`store` with their orders and scopes, the
//! atomics with `_block`/`_system` and dotted `.order.scope` suffixes, the
//! fences; spin loops with and without `backoff()`; `critical` sections
//! under `check mutual_exclusion` or `check capacity(1)`, `phase` under
//! `check barrier`, `assert`, `progress`, branches on the thread's number, and
//! loops over a small `iters` parameter. Then a few statements are
//! dropped in at random places, and some shapes get a bug on purpose
//! (a missing fence, a release that does not release, a wait before the
//! signal), so verdicts of every kind come out.

use crate::common::rng::Rng;

/// A generated program and the launch it is meant for.
pub struct Generated {
    pub seed: u64,
    /// Which shape it was built from (`mp`, `sb`, `lock`, ...).
    pub shape: &'static str,
    pub blocks: u32,
    /// Threads per block: 1 under `harness master`; 2 or 3 under
    /// `harness all`, where a thread's number is `me`.
    pub threads: u32,
    /// The harness loops `for (u32 i = 0; iters == 0 || i < iters; i++)`:
    /// `--param iters=0` runs it forever (for the fair schedulers).
    pub endless: bool,
    pub text: String,
}

/// What can stop a search with a violation in a generated program (besides
/// a deadlock, which is what is left when nothing else is reachable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// `assert(...)` (property `assert`).
    Assert,
    /// `check mutual_exclusion;` or `check capacity(1);` (`capacity`).
    Exclusion,
    /// `check barrier;` (`barrier`).
    Barrier,
    /// A race under `ptx` (`race`): switched by the configuration's
    /// `races`, not by the text.
    Race,
}

impl Fault {
    /// The source of a violation of `property` (a report's), if a
    /// program can switch it off.
    pub fn of(property: &str) -> Option<Fault> {
        match property {
            "assert" => Some(Fault::Assert),
            "capacity" => Some(Fault::Exclusion),
            "barrier" => Some(Fault::Barrier),
            "race" => Some(Fault::Race),
            _ => None,
        }
    }
}

/// The program of `seed`.
pub fn generate(seed: u64) -> Generated {
    build(seed, None)
}

/// The program of `seed` with `only` its violations of one source: the
/// other assertions always hold (`assert((c) || true)`: their loads stay,
/// so the program's memory behaviour is the same) and the other `check`
/// lines are dropped. (Races are the configuration's to switch off.)
pub fn generate_only(seed: u64, only: Fault) -> Generated {
    build(seed, Some(only))
}

fn build(seed: u64, only: Option<Fault>) -> Generated {
    let mut g = Gen {
        rng: Rng::new(seed),
        live: Box::new(move |fault| only.is_none_or(|o| o == fault)),
        globals: Vec::new(),
        checks: Vec::new(),
        locals: Vec::new(),
        iters: None,
        next_local: 0,
        in_critical: false,
        id: "blockIdx",
        count: "nblocks",
        shared: false,
    };
    // Mostly one thread in each of 2-3 blocks (`harness master`), else
    // `harness all` with threads that share a block.
    let (blocks, threads) = match g.rng.chance(25) {
        true => *g.rng.pick(&[(1, 2), (1, 3), (2, 2)]),
        false => (if g.rng.chance(45) { 3 } else { 2 }, 1),
    };
    if threads > 1 {
        g.id = "me";
        g.count = "(nblocks * threads_per_block)";
        g.shared = blocks == 1;
    }
    let (shape, roles, looped) = match g.rng.below(12) {
        0 | 1 => ("mp", g.message_passing(), false),
        2 | 3 => ("sb", g.store_buffering(), false),
        4 | 5 => ("lock", g.spin_lock(), true),
        6 | 7 => ("handshake", g.handshake(), false),
        8 | 9 => ("barrier", g.counter_barrier(), false),
        _ => ("mix", g.mix(), true),
    };
    let mut roles = roles;
    g.sprinkle(&mut roles);
    let mut body = render_roles(&roles);
    // A lock or a mix runs 1 or 2 rounds, most often in the liveness
    // convention's loop, which `--param iters=0` runs forever.
    let endless = looped && g.rng.chance(70);
    if looped {
        g.iters.get_or_insert(1 + g.rng.below(2));
        let head = match endless {
            true => "for (u32 i = 0; iters == 0 || i < iters; i++)",
            false => "for (u32 i = 0; i < iters; i++)",
        };
        body = vec![block(head, &body)];
    }
    let mut text = format!(
        "//! name: gen_{seed}\n//! description: generated by tests/generated.rs (seed {seed}, shape {shape}, --blocks {blocks} --threads-per-block {threads})\n\n"
    );
    if let Some(iters) = g.iters {
        text += &format!("param iters = {iters};\n");
    }
    for v in &g.globals {
        let volatile = if v.volatile { "volatile " } else { "" };
        let space = if v.shared { "shared" } else { "global" };
        let size = if v.array {
            format!("[{}]", g.count)
        } else {
            String::new()
        };
        text += &format!("{space} {volatile}u32 {}{size} = 0;\n", v.name);
    }
    for l in &g.locals {
        text += &format!("local u32 {l} = 0;\n");
    }
    let mut harness: Vec<String> = g
        .checks
        .iter()
        .filter(|c| {
            (g.live)(if *c == "barrier" {
                Fault::Barrier
            } else {
                Fault::Exclusion
            })
        })
        .map(|c| format!("check {c};"))
        .collect();
    if threads > 1 {
        harness.push("u32 me = blockIdx * threads_per_block + threadIdx;".into());
    }
    harness.extend(body);
    text += "\n";
    let kind = if threads > 1 { "all" } else { "master" };
    text += &block(&format!("harness {kind}"), &harness);
    text += "\n";
    Generated {
        seed,
        shape,
        blocks,
        threads,
        endless,
        text,
    }
}

struct Global {
    name: &'static str,
    volatile: bool,
    array: bool,
    /// `shared` (block memory) rather than `global`.
    shared: bool,
}

/// What runs where: `(condition on the thread's number, statements)`, the
/// last one with no condition (every other thread).
type Roles = Vec<(Option<String>, Vec<String>)>;

struct Gen {
    rng: Rng,
    /// Whether the program keeps its violations of a source.
    live: Box<dyn Fn(Fault) -> bool>,
    globals: Vec<Global>,
    /// The harness's `check` lines (without `check` and `;`).
    checks: Vec<String>,
    /// `local u32` declarations (per-block state across iterations).
    locals: Vec<&'static str>,
    /// The default of `param iters`, if the program has one.
    iters: Option<usize>,
    next_local: u32,
    /// Statements drawn now are inside a `critical` section (which cannot nest).
    in_critical: bool,
    /// A thread's number and how many there are: `blockIdx` and `nblocks`
    /// under `harness master`, `me` and `(nblocks * threads_per_block)`
    /// under `harness all`.
    id: &'static str,
    count: &'static str,
    /// Variables may be `shared` (one block, every thread in it).
    shared: bool,
}

/// `head { body }`, the body indented.
fn block(head: &str, body: &[String]) -> String {
    if body.is_empty() {
        return format!("{head} {{ }}");
    }
    let mut s = format!("{head} {{\n");
    for stmt in body {
        for line in stmt.lines() {
            s += &format!("    {line}\n");
        }
    }
    s + "}"
}

/// One role's statements, or `if (c0) { .. } else if (c1) { .. } else { .. }`.
fn render_roles(roles: &Roles) -> Vec<String> {
    if let [(None, body)] = roles.as_slice() {
        return body.clone();
    }
    let mut chain = String::new();
    for (i, (cond, body)) in roles.iter().enumerate() {
        let head = match (i, cond) {
            (0, Some(c)) => format!("if ({c})"),
            (_, Some(c)) => format!(" else if ({c})"),
            (_, None) => " else".to_string(),
        };
        chain += &block(&head, body);
    }
    vec![chain]
}

impl Gen {
    /// Declares global `name` (once) and returns it; `volatile` and
    /// `array` are the chances, in percent, that it is so declared.
    fn global(&mut self, name: &'static str, volatile: usize, array: usize) -> &'static str {
        if !self.globals.iter().any(|g| g.name == name) {
            let volatile = self.rng.chance(volatile);
            let array = self.rng.chance(array);
            let shared = self.rng.chance(50) && self.shared;
            self.globals.push(Global {
                name,
                volatile,
                array,
                shared,
            });
        }
        name
    }

    /// `name`, or an element of it where it is an array: the block's own
    /// (`own`) or its neighbour's.
    fn at(&self, name: &str, own: bool) -> String {
        let array = self.globals.iter().any(|g| g.name == name && g.array);
        match (array, own) {
            (false, _) => name.to_string(),
            (true, true) => format!("{name}[{}]", self.id),
            (true, false) => format!("{name}[({} + 1) % {}]", self.id, self.count),
        }
    }

    /// The condition that thread `n` runs a role.
    fn is(&self, n: u32) -> String {
        format!("{} == {n}", self.id)
    }

    fn fresh_local(&mut self) -> String {
        self.next_local += 1;
        format!("r{}", self.next_local)
    }

    /// `assert(cond, "message");`, or where assertions are off one that
    /// always holds but still reads what `cond` reads.
    fn assertion(&self, cond: &str, message: &str) -> String {
        let message = match message {
            "" => String::new(),
            m => format!(", \"{m}\""),
        };
        match (self.live)(Fault::Assert) {
            true => format!("assert({cond}{message});"),
            false => format!("assert(({cond}) || true{message});"),
        }
    }

    fn check(&mut self, check: &str) {
        if !self.checks.iter().any(|c| c == check) {
            self.checks.push(check.to_string());
        }
    }

    fn mutual_exclusion(&mut self) {
        let check = if self.rng.chance(70) {
            "mutual_exclusion"
        } else {
            "capacity(1)"
        };
        if !self
            .checks
            .iter()
            .any(|c| c == "mutual_exclusion" || c == "capacity(1)")
        {
            self.check(check);
        }
    }

    /// An atomic's name suffix: scope (`_block`, `_system`) or dotted order
    /// and scope; mostly none (relaxed, device scope).
    fn atomic_suffix(&mut self) -> String {
        match self.rng.below(12) {
            0 => "_block".into(),
            1 => "_system".into(),
            2 => ".acquire".into(),
            3 => ".release".into(),
            4 => ".acq_rel".into(),
            5 => format!(".relaxed{}", self.rng.pick(&[".gpu", ".sys", ".cta"])),
            6 => format!(".acq_rel{}", self.rng.pick(&[".gpu", ".sys"])),
            _ => String::new(),
        }
    }

    /// An expression that reads `loc`.
    fn read(&mut self, loc: &str) -> String {
        match self.rng.below(10) {
            0..=3 => loc.to_string(),
            4 => format!("load({loc})"),
            5 => format!("load.volatile({loc})"),
            6 => format!(
                "load.acquire{}({loc})",
                self.rng.pick(&["", ".gpu", ".sys"])
            ),
            7 => format!(
                "load.relaxed{}({loc})",
                self.rng.pick(&["", ".cta", ".gpu"])
            ),
            8 => format!("atomicOr{}({loc}, 0)", self.atomic_suffix()),
            _ => format!("atomicAdd{}({loc}, 0)", self.atomic_suffix()),
        }
    }

    /// A statement that writes `value` to `loc`.
    fn write(&mut self, loc: &str, value: &str) -> String {
        match self.rng.below(10) {
            0..=3 => format!("{loc} = {value};"),
            4 => format!("store({loc}, {value});"),
            5 => format!("store.volatile({loc}, {value});"),
            6 => format!(
                "store.release{}({loc}, {value});",
                self.rng.pick(&["", ".gpu", ".sys"])
            ),
            7 => format!(
                "store.relaxed{}({loc}, {value});",
                self.rng.pick(&["", ".cta", ".gpu"])
            ),
            _ => format!("atomicExch{}({loc}, {value});", self.atomic_suffix()),
        }
    }

    /// A read-modify-write of `loc` whose value stays small.
    fn rmw(&mut self, loc: &str) -> String {
        let s = self.atomic_suffix();
        match self.rng.below(7) {
            0 => format!("atomicAdd{s}({loc}, 1)"),
            1 => format!("atomicInc{s}({loc}, 2)"),
            2 => format!("atomicOr{s}({loc}, {})", self.rng.pick(&[1, 2])),
            3 => format!("atomicAnd{s}({loc}, {})", self.rng.pick(&[0, 1])),
            4 => format!("atomicCAS{s}({loc}, 0, 1)"),
            5 => format!("atomicExch{s}({loc}, {})", self.rng.pick(&[0, 1, 2])),
            _ => format!("atomicSub{s}({loc}, 1)"),
        }
    }

    fn fence(&mut self) -> String {
        self.rng
            .pick(&[
                "__threadfence();",
                "__threadfence();",
                "__threadfence_block();",
                "__threadfence_system();",
                "fence.sc.gpu();",
                "fence.acq_rel.gpu();",
                "fence.acq_rel.cta();",
            ])
            .to_string()
    }

    /// A fence with probability `percent`.
    fn maybe_fence(&mut self, percent: usize) -> Option<String> {
        self.rng.chance(percent).then(|| self.fence())
    }

    /// `while (cond) { }`, with `backoff();` in the body half the time.
    /// Spins while `cond` holds: an empty loop or one with `backoff()`
    /// mostly, else a fence or a progress point in the body, the test
    /// inside `while (true)`, or a bounded number of tries.
    fn spin(&mut self, cond: &str) -> String {
        let plain = |body: &str| {
            let body: Vec<String> = body.lines().map(String::from).collect();
            block(&format!("while ({cond})"), &body)
        };
        match self.rng.below(20) {
            0..=6 => plain(""),
            7..=13 => plain("backoff();"),
            14 => {
                let fence = self.fence();
                plain(&fence)
            }
            15 => plain("progress;"),
            16 | 17 => {
                let test = block(&format!("if (!({cond}))"), &["break;".into()]);
                block("while (true)", &[test, "backoff();".into()])
            }
            _ => {
                let j = self.fresh_local();
                block(
                    &format!("for (u32 {j} = 0; {j} < 3 && ({cond}); {j}++)"),
                    &[],
                )
            }
        }
    }

    /// Waits until `loc` is no longer 0.
    /// (Or reads it into a local first and again in the loop's body.)
    fn await_set(&mut self, loc: &str) -> String {
        let r = self.read(loc);
        if self.rng.chance(20) {
            let v = self.fresh_local();
            let again = block(&format!("while ({v} == 0)"), &[format!("{v} = {r};")]);
            return format!("u32 {v} = {r};\n{again}");
        }
        self.spin(&format!("{r} == 0"))
    }

    /// Takes the lock `lock`: a CAS or exchange loop, or test-and-test-and-set.
    fn acquire(&mut self, lock: &str) -> String {
        let s = self.atomic_suffix();
        match self.rng.below(10) {
            0..=2 => self.spin(&format!("atomicCAS{s}({lock}, 0, 1) != 0")),
            3..=5 => self.spin(&format!("atomicExch{s}({lock}, 1) != 0")),
            6..=8 => {
                let poll = self.read(lock);
                let inner = self.spin(&format!("{poll} != 0"));
                let take = block(
                    &format!("if (atomicCAS{s}({lock}, 0, 1) == 0)"),
                    &["break;".into()],
                );
                block("while (true)", &[inner, take])
            }
            // A bug: one try, and on into the critical section anyway.
            _ => format!("atomicCAS{s}({lock}, 0, 1);"),
        }
    }

    /// A critical section: empty, or writing and checking data.
    fn critical(&mut self) -> String {
        self.mutual_exclusion();
        self.in_critical = true;
        let body = match self.rng.below(3) {
            0 => Vec::new(),
            1 => {
                let data = self.global("data", 20, 0);
                let mine = format!("{} + 1", self.id);
                let w = self.write(data, &mine);
                let r = self.read(data);
                let check =
                    self.assertion(&format!("{r} == {mine}"), "another thread wrote the data");
                vec![w, check]
            }
            _ => {
                let count = self.global("count", 10, 0);
                let l = self.fresh_local();
                let r = self.read(count);
                let w = self.write(count, &format!("({l} + 1) % 3"));
                vec![format!("u32 {l} = {r};"), w]
            }
        };
        self.in_critical = false;
        block("critical", &body)
    }

    /// Message passing: block 0 writes data then a flag; the others wait
    /// for the flag and check the data. Fences (or release / acquire)
    /// on either side at random.
    fn message_passing(&mut self) -> Roles {
        let data = self.global("data", 20, 0);
        let flag = self.global("flag", 40, 0);
        let mut producer = vec![self.write(data, "42")];
        producer.extend(self.maybe_fence(50));
        producer.push(self.write(flag, "1"));
        let mut consumer = vec![self.await_set(flag)];
        consumer.extend(self.maybe_fence(50));
        let l = self.fresh_local();
        let r = self.read(data);
        consumer.push(format!("u32 {l} = {r};"));
        consumer.push(self.assertion(&format!("{l} == 42"), "stale data"));
        vec![(Some(self.is(0)), producer), (None, consumer)]
    }

    /// Store buffering as Dekker's entry: blocks 0 and 1 each raise their
    /// flag, then enter the critical section if the other's is down.
    fn store_buffering(&mut self) -> Roles {
        let x = self.global("x", 30, 0);
        let y = self.global("y", 30, 0);
        let mut side = |mine: &str, theirs: &str| {
            let mut body = vec![self.write(mine, "1")];
            body.extend(self.maybe_fence(50));
            let r = self.read(theirs);
            let critical = self.critical();
            body.push(block(&format!("if ({r} == 0)"), &[critical]));
            body
        };
        let first = side(x, y);
        let second = side(y, x);
        vec![
            (Some(self.is(0)), first),
            (Some(self.is(1)), second),
            (None, Vec::new()),
        ]
    }

    /// A spin lock around a critical section, taken by every block.
    fn spin_lock(&mut self) -> Roles {
        let lock = self.global("lock", 20, 0);
        let mut body = vec![self.acquire(lock)];
        body.extend(self.maybe_fence(60));
        body.push(self.critical());
        body.extend(self.maybe_fence(60));
        // A bug now and then: the release writes 1.
        let value = if self.rng.chance(8) { "1" } else { "0" };
        body.push(self.write(lock, value));
        if self.rng.chance(30) {
            body.push("progress;".into());
        }
        vec![(None, body)]
    }

    /// Each block raises its flag and waits for its neighbour's; data
    /// written before the flag is checked after the wait. A bug now and
    /// then: the wait before the signal.
    fn handshake(&mut self) -> Roles {
        let flags = self.global("flags", 30, 100);
        let data = self.rng.chance(50).then(|| self.global("data", 20, 100));
        let mut body = Vec::new();
        if let Some(data) = data {
            let own = self.at(data, true);
            let mine = format!("{} + 1", self.id);
            body.push(self.write(&own, &mine));
            body.extend(self.maybe_fence(50));
        }
        let (own, theirs) = (self.at(flags, true), self.at(flags, false));
        let signal = self.write(&own, "1");
        let wait = self.await_set(&theirs);
        if self.rng.chance(15) {
            body.extend([wait, signal]);
        } else {
            body.extend([signal, wait]);
        }
        if let Some(data) = data {
            body.extend(self.maybe_fence(50));
            let theirs = self.at(data, false);
            let r = self.read(&theirs);
            let cond = format!("{r} == ({} + 1) % {} + 1", self.id, self.count);
            body.push(self.assertion(&cond, "the neighbour's data is stale"));
        }
        vec![(None, body)]
    }

    /// A counter barrier: every block adds 1 and spins until the counter
    /// reaches its goal, inside a `phase` under `check barrier`; over
    /// `iters` episodes the goal grows by `nblocks` each time.
    fn counter_barrier(&mut self) -> Roles {
        self.check("barrier");
        let count = self.global("count", 50, 0);
        let data = self.rng.chance(40).then(|| self.global("data", 20, 100));
        let episodes = self.rng.chance(40);
        let mut inner = Vec::new();
        if let Some(data) = data {
            let own = self.at(data, true);
            inner.push(self.write(&own, "1"));
        }
        inner.extend(self.maybe_fence(50));
        let goal = if episodes {
            self.locals.push("goal");
            inner.push(format!("goal += {};", self.count));
            "goal"
        } else {
            self.count
        };
        let add = self.rmw_add(count);
        inner.push(format!("{add};"));
        let r = self.read(count);
        // A bug now and then: `!=` deadlocks when a fast block re-enters.
        let cmp = if episodes && self.rng.chance(30) {
            "!="
        } else {
            "<"
        };
        inner.push(self.spin(&format!("{r} {cmp} {goal}")));
        inner.extend(self.maybe_fence(50));
        let mut body = vec![block("phase", &inner)];
        if let Some(data) = data {
            let theirs = self.at(data, false);
            let r = self.read(&theirs);
            body.push(self.assertion(
                &format!("{r} == 1"),
                "the barrier let a block through early",
            ));
        }
        if episodes {
            self.iters = Some(2);
            body = vec![block("for (u32 i = 0; i < iters; i++)", &body)];
        }
        vec![(None, body)]
    }

    /// An arrival: `atomicAdd` with any suffix, or `atomicInc` with a
    /// limit it never reaches.
    fn rmw_add(&mut self, loc: &str) -> String {
        let s = self.atomic_suffix();
        match self.rng.chance(70) {
            true => format!("atomicAdd{s}({loc}, 1)"),
            false => format!("atomicInc{s}({loc}, 100)"),
        }
    }

    /// Two or three roles of a few random statements over `x`, `y` and
    /// maybe an array `a`.
    fn mix(&mut self) -> Roles {
        let mut vars = vec![self.global("x", 30, 0)];
        if self.rng.chance(60) {
            vars.push(self.global("y", 30, 0));
        }
        if self.rng.chance(30) {
            vars.push(self.global("a", 20, 100));
        }
        let role = |g: &mut Gen| -> Vec<String> {
            let n = 1 + g.rng.below(4);
            (0..n).map(|_| g.statement(&vars, 2)).collect()
        };
        match self.rng.below(3) {
            0 => vec![(None, role(self))],
            1 => {
                let a = role(self);
                let b = role(self);
                vec![(Some(self.is(0)), a), (None, b)]
            }
            _ => {
                let a = role(self);
                let b = role(self);
                let c = role(self);
                vec![(Some(self.is(0)), a), (Some(self.is(1)), b), (None, c)]
            }
        }
    }

    /// One random statement over `vars`, nesting at most `depth` deep.
    fn statement(&mut self, vars: &[&'static str], depth: u32) -> String {
        let var = self.rng.pick(vars);
        let own = self.rng.chance(60);
        let loc = self.at(var, own);
        let nested = depth > 0;
        match self.rng.below(if nested { 12 } else { 8 }) {
            0 | 1 => {
                let v = match self.rng.below(4) {
                    3 => format!("{} + 1", self.id),
                    n => n.to_string(),
                };
                self.write(&loc, &v)
            }
            2 => format!("{};", self.rmw(&loc)),
            3 => {
                let l = self.fresh_local();
                let r = self.read(&loc);
                let check = match self.rng.below(4) {
                    0 => self.assertion(&format!("{l} != 2"), ""),
                    1 => self.assertion(&format!("{l} <= 1"), &format!("{var} went past 1")),
                    2 => "progress;".to_string(),
                    _ => String::new(),
                };
                format!("u32 {l} = {r};\n{check}").trim_end().to_string()
            }
            4 => self.fence(),
            5 => self.await_set(&loc),
            6 => self.acquire(&loc),
            7 => self
                .rng
                .pick(&["progress;", "backoff();", "__syncthreads();"])
                .to_string(),
            8 | 9 => {
                let r = self.read(&loc);
                let then = self.statement(vars, depth - 1);
                let mut s = block(&format!("if ({r} == {})", self.rng.below(2)), &[then]);
                if self.rng.chance(40) {
                    let otherwise = self.statement(vars, depth - 1);
                    s += &block(" else", &[otherwise]);
                }
                s
            }
            10 if !self.in_critical => {
                self.mutual_exclusion();
                self.in_critical = true;
                let inner = self.statement(vars, depth - 1);
                self.in_critical = false;
                block("critical", &[inner])
            }
            _ => {
                self.iters.get_or_insert(2);
                let j = self.fresh_local();
                let inner = self.statement(vars, depth - 1);
                block(&format!("for (u32 {j} = 0; {j} < iters; {j}++)"), &[inner])
            }
        }
    }

    /// Drops a few statements in at random places of the roles: a fence,
    /// a progress point, a read, an atomic on a global already there.
    fn sprinkle(&mut self, roles: &mut Roles) {
        let vars: Vec<&'static str> = self.globals.iter().map(|g| g.name).collect();
        for _ in 0..self.rng.below(3) {
            let r = self.rng.below(roles.len());
            let stmt = match self.rng.below(5) {
                0 => self.fence(),
                1 => "progress;".into(),
                2 => "backoff();".into(),
                _ => {
                    let var = self.rng.pick(&vars);
                    let loc = self.at(var, true);
                    match self.rng.chance(50) {
                        true => {
                            let l = self.fresh_local();
                            let r = self.read(&loc);
                            format!("u32 {l} = {r};")
                        }
                        false => format!("{};", self.rmw(&loc)),
                    }
                }
            };
            let body = &mut roles[r].1;
            let at = self.rng.below(body.len() + 1);
            body.insert(at, stmt);
        }
    }
}
