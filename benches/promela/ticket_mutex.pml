/* The fetch-and-add ticket mutex of specs/ticket_mutex.gsync (seed 003,
 * section 5) for N processes, one per block, one round each: the peer
 * model for `gsync-check bench-checker --spin`. Same steps as the
 * gsync-check model: the atomicAdd taking a ticket, the volatile polls of
 * `turn`, entering the critical section, the plain store and load of
 * `data`, leaving, and unlock's separate load and store of `turn`. */
#ifndef N
#define N 3
#endif

byte ticket = 0;
byte turn = 0;
byte data = 0;
byte inside = 0;

active [N] proctype block() {
    byte my;
    byte t;
    atomic { my = ticket; ticket++ };       /* my_ticket = atomicAdd(ticket, 1) */
    do                                      /* while (turn != my_ticket) backoff(); */
    :: turn == my -> break
    :: else -> skip
    od;
    inside++;                               /* critical { */
    assert(inside == 1);
    data = _pid + 1;
    assert(data == _pid + 1);
    inside--;                               /* } */
    t = turn;                               /* turn = turn + 1: a load ... */
    turn = t + 1                            /* ... then a store */
}
