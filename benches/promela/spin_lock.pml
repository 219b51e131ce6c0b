/* The test-and-set spin lock of specs/spin_lock.gsync (seed 003,
 * Algorithm 1) for N processes, one per block, one round each: the peer
 * model for `gsync-check bench-checker --spin`. Same steps as the
 * gsync-check model: the atomicExch of the spin loop, entering the critical
 * section, the plain store and the plain load of `data`, leaving, and the
 * releasing atomicExch. Mutual exclusion is an assertion on the number of
 * processes inside; deadlock is SPIN's invalid end state. */
#ifndef N
#define N 3
#endif

byte lock = 0;
byte data = 0;
byte inside = 0;

active [N] proctype block() {
    byte old;
acquire:
    atomic { old = lock; lock = 1 };        /* atomicExch(lock, 1) */
    if
    :: old != 0 -> goto acquire
    :: else -> skip
    fi;
    inside++;                               /* critical { */
    assert(inside == 1);
    data = _pid + 1;                        /* data = blockIdx + 1 */
    assert(data == _pid + 1);               /* assert(data == blockIdx + 1) */
    inside--;                               /* } */
    lock = 0                                /* atomicExch(lock, 0) */
}
