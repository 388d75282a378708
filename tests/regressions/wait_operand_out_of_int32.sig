// Regression (found while writing specs/): a TWAIT/TTEST comparison value is an
// int32_t on the device. A computed value outside int32 is a run-time `error`
// (a constant one is a spec error), not a comparison against an unbounded integer.
protocol wait_operand_out_of_int32;

const INT32_MAX = 0x7FFFFFFF;
const BASE = INT32_MAX - 1;
ranks 2;
signal flag;

host {
    for (int l = 0; l < 2; l++) {
        launch;
        host_barrier;
    }
}

kernel {
    int epoch = BASE + launch_id + 1;       // launch 0: INT32_MAX; launch 1: out of range
    if (rank == 0) {
        TNOTIFY(flag @ 1, min(epoch, INT32_MAX), Set);
    } else {
        TWAIT(flag, epoch, GE);             // launch 1: operand 2147483648
    }
}

expect error;
