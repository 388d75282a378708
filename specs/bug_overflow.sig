// BUG (int32 overflow of a never-reset counter): signals are int32. A counter
// that only ever grows -- a ticket / sequence counter advanced with AtomicAdd
// by every rank at every launch and never reset -- runs out of range after
// about 2^31 increments. Rather than running 2^31 launches, the spec starts the
// counter where a long-running job would be: INIT = INT32_MAX - 2 (the
// signal's declared initial value stands for "after ~2^31 launches").
//
// Every rank takes one ticket per launch with AtomicAdd(ticket @ 0, 1); with 2
// ranks and 2 launches that is 4 increments, and the third one leaves the int32
// range: overflow (on the NPU it silently wraps to INT32_MIN, and every GE
// wait on the counter would hang or pass wrongly). The overflowing process
// stops there, so nothing else is reported.
// (Fix: bound the counter's lifetime -- reset it on the host, behind a host
// barrier, every so often -- or make it zero-sum so that it returns to 0.)
protocol bug_overflow;

param N = 2;              // ranks
param L = 2;              // launches
const INT32_MAX = 0x7FFFFFFF;
ranks N;
signal ticket = INT32_MAX - 2;      // on rank 0: next ticket number

host {
    for (int l = 0; l < L; l++) {
        launch;
    }
}

kernel {
    TNOTIFY(ticket @ 0, 1, AtomicAdd);      // take a ticket
}

expect overflow;
