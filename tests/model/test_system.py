"""Semantics of the transition system, on hand-checked protocols."""

from helpers import check_text, compile_text, system_of, violated

from model.system import BARRIER


def test_initial_state_shape():
    s = system_of("ranks 2; blocks 3; signal f[2] = 7; kernel {}")
    state, events = s.initial()
    assert events == ()
    assert len(state.procs) == 2 + 2 * 3
    assert state.procs[2:] == (None,) * 6  # no kernel runs before launch
    assert state.signals == (7, 7, 7, 7) and state.ghost == () and state.launches == ()


def test_launch_starts_every_block_and_join_waits_for_them():
    s = system_of("ranks 1; blocks 2; signal f; kernel { TNOTIFY(f, 1, AtomicAdd); }")
    state, _ = s.initial()
    (step,) = s.successors(state)
    assert step.process == 0  # host 0 launches
    after = step.next
    assert all(p is not None for p in after.procs)
    # the host is at JOIN and cannot step while blocks run
    assert [t.process for t in s.successors(after)] == [1, 2]


def test_single_notify_wait_states_pinned():
    r = check_text("ranks 2; signal flag; kernel { if (rank == 0) TNOTIFY(flag @ 1, 1, Set); "
                   "else TWAIT(flag, 1, EQ); }", por=False, symmetry=False)
    assert r.violated == [] and (r.stats.states, r.stats.transitions) == (12, 16)


NON_SNAPSHOT = """
ranks 1; blocks 2; signal f[2];
kernel {
  if (block == 0) {
    TNOTIFY(f[0], 1, Set);
    TNOTIFY(f[0], 0, Set);
    TNOTIFY(f[1], 1, Set);
  } else {
    TWAIT(f, 1, EQ);
  }
}
"""


def test_tensor_wait_is_a_pass_not_a_snapshot():
    # f[0] and f[1] are never 1 together, yet a pass can read f[0] = 1, then f[1] = 1.
    assert "deadlock" in violated(NON_SNAPSHOT)  # some interleavings miss f[0] = 1
    r = check_text(NON_SNAPSHOT.replace("TWAIT(f, 1, EQ);", "TWAIT(f, 1, EQ); assert(false);"))
    assert "assertion" in r.violated  # ... and some complete the wait
    r_atomic = check_text(NON_SNAPSHOT.replace("TWAIT(f, 1, EQ);", "TWAIT(f, 1, EQ); assert(false);"),
                          tensor_wait="atomic")
    assert "assertion" not in r_atomic.violated  # an atomic snapshot never sees both


def test_failed_read_restarts_the_pass():
    s = system_of("ranks 1; blocks 2; signal f[2]; kernel { if (block == 0) { TNOTIFY(f[0], 1, Set); "
                  "TNOTIFY(f[0], 0, Set); } else TWAIT(f, 1, EQ); }")
    state, _ = s.initial()
    state = s.step(state, 0).next  # launch
    state = s.step(state, 1).next  # block 0: f[0] = 1
    step = s.step(state, 2)  # block 1 reads f[0] = 1
    assert step.reads == ((0, 1, 1, True),) and step.writes == ()
    state = step.next
    assert state.procs[2][1] == 1  # next read is element 1
    step = s.step(state, 2)  # reads f[1] = 0: fails
    assert step.reads == ((1, 0, 1, False),)
    assert step.next.procs[2][1] == 0  # the pass starts again at element 0


def test_ttest_true_and_false_paths():
    text = """ranks 2; signal f;
    kernel {
      if (rank == 0) TNOTIFY(f @ 1, 1, Set);
      else { bool seen = TTEST(f, 1, EQ); assert(seen); }
    }"""
    assert violated(text) == {"assertion"}  # the poll may come first
    assert violated(text.replace("assert(seen)", "assert(seen || !seen)")) == set()


def test_bounded_polling_then_wait():
    text = """ranks 2; signal f;
    kernel {
      if (rank == 0) TNOTIFY(f @ 1, 1, Set);
      else {
        int tries = 0;
        while (!TTEST(f, 1, EQ) && tries < 3) tries++;
        TWAIT(f, 1, EQ);
      }
    }"""
    assert violated(text) == set()


def test_local_infinite_loop_is_a_deadlock():
    r = check_text("ranks 1; kernel { int x = 0; while (true) { x = 1 - x; } }")
    assert r.violated == ["deadlock"]
    assert "spins forever in a local loop" in r.violations[0].situation[-1].text


def test_polling_forever_is_a_deadlock_not_a_hang():
    r = check_text("ranks 1; signal f; kernel { while (!TTEST(f, 1, EQ)) {} }")
    assert r.violated == ["deadlock"]
    assert "can only spin forever" in r.violations[0].message


def test_assert_failure_stops_only_that_process():
    r = check_text("ranks 2; signal f; kernel { if (rank == 0) { assert(false); } "
                   "else { TNOTIFY(f @ 0, 1, Set); } }")
    assert r.violated == ["assertion"]


def test_overflow_and_error():
    assert violated("ranks 1; signal f = 2147483647; kernel { TNOTIFY(f, 1, AtomicAdd); }") == {"overflow"}
    assert violated("ranks 1; signal f = -2147483648; kernel { TNOTIFY(f, -1, AtomicAdd); }") == {"overflow"}
    assert violated("ranks 1; signal f = 2147483646; kernel { TNOTIFY(f, 1, AtomicAdd); }") == set()
    assert violated("ranks 2; signal f; kernel { TWAIT(f @ 1, 0, EQ); }") == {"error"}
    assert violated("ranks 2; signal f; kernel { TWAIT(f @ rank, 0, EQ); }") == set()
    assert violated("ranks 2; signal f[2]; kernel { TNOTIFY(f[rank + 1], 1, Set); }") == {"error"}
    assert violated("ranks 2; signal f; kernel { TNOTIFY(f @ rank + 1, 1, Set); }") == {"error"}
    assert violated("ranks 1; kernel { int z = 0; int x = 1 / z; }") == {"error"}
    assert violated("ranks 1; signal f; kernel { int v = 1 << 40; TNOTIFY(f, v, Set); }") == {"error"}


def test_signed_comparisons():
    assert violated("ranks 1; signal f = -1; kernel { TWAIT(f, 0, LT); }") == set()
    assert violated("ranks 1; signal f = -1; kernel { TWAIT(f, 0, GT); }") == {"deadlock"}


def test_launch_id_and_signals_persist_across_launches():
    text = """ranks 1; signal epoch;
    host { for (int i = 0; i < 3; i++) launch; }
    kernel { TNOTIFY(epoch, 1, AtomicAdd); TWAIT(epoch, launch_id + 1, EQ); }"""
    assert violated(text) == set()
    assert violated(text.replace("launch_id + 1", "1")) == {"deadlock"}


def test_host_barrier_is_one_joint_step():
    s = system_of("ranks 2; host { host_barrier; } kernel {}")
    state, _ = s.initial()
    assert [t.process for t in s.successors(state)] == [BARRIER]


def test_host_barrier_with_a_finished_host_deadlocks():
    assert violated("ranks 2; host { if (rank == 0) host_barrier; } kernel {}") == {"deadlock"}


def test_reset_restores_init_of_own_copy_only():
    text = """ranks 2; signal f = 3; check clean_exit;
    host { launch; host_barrier; reset f; }
    kernel { TNOTIFY(f @ (rank + 1) % nranks, 1, Set); }"""
    assert violated(text) == set()
    assert violated(text.replace("reset f;", "if (rank == 0) reset f;")) == {"dirty_exit"}


def test_dirty_exit_only_when_asked():
    text = "ranks 1; signal f; kernel { TNOTIFY(f, 1, Set); }"
    assert violated(text) == set()
    assert violated(text, clean_exit=True) == {"dirty_exit"}
    assert violated("check clean_exit;" + text) == {"dirty_exit"}


# ---- lost notification: the z3 predicate test


def _two_sets(first: int, second: int, cmp: str, operand: int) -> str:
    return f"""ranks 2; signal f;
    kernel {{
      if (rank == 0) {{ TNOTIFY(f @ 1, {first}, Set); TNOTIFY(f @ 1, {second}, Set); }}
      else TWAIT(f, {operand}, {cmp});
    }}"""


def test_ge_wait_loses_nothing_when_overwritten_by_a_larger_value():
    assert violated(_two_sets(1, 2, "GE", 1)) == set()
    assert violated(_two_sets(1, 2, "GE", 2)) == set()


def test_eq_wait_overwritten_loses_and_deadlocks():
    assert violated(_two_sets(1, 2, "EQ", 1)) == {"lost_notification", "deadlock"}


def test_overwrite_that_no_wait_can_distinguish_is_not_lost():
    # EQ 2 cannot be satisfied by 1: replacing 1 with 2 loses nothing
    assert violated(_two_sets(1, 2, "EQ", 2)) == set()


def test_decreasing_overwrite_of_ge_wait_is_lost():
    assert violated(_two_sets(2, 0, "GE", 1)) == {"lost_notification", "deadlock"}


def test_same_value_set_is_not_lost():
    assert violated(_two_sets(1, 1, "EQ", 1)) == set()


def test_atomic_add_never_loses():
    text = """ranks 2; signal f;
    kernel { if (rank == 0) { TNOTIFY(f @ 1, 1, AtomicAdd); TNOTIFY(f @ 1, 1, AtomicAdd); }
             else TWAIT(f, 1, EQ); }"""
    assert violated(text) == {"deadlock"}  # overshoot is a deadlock, not a lost notification


def test_overwrite_after_a_satisfied_read_is_not_lost():
    text = """ranks 2; signal f; signal ack;
    kernel { if (rank == 0) { TNOTIFY(f @ 1, 1, Set); TWAIT(ack, 1, EQ); TNOTIFY(f @ 1, 2, Set); }
             else { TWAIT(f, 1, EQ); TNOTIFY(ack @ 0, 1, Set); TWAIT(f, 2, EQ); } }"""
    assert violated(text) == set()


def test_reset_of_unread_notification_is_lost():
    text = """ranks 2; signal f;
    host { launch; if (rank == 1) reset f; }
    kernel { if (rank == 0) TNOTIFY(f @ 1, 1, Set); else if (launch_id == 0) { } }"""
    # nobody waits on f: nothing can be lost
    assert violated(text) == set()
    waiting = """ranks 2; signal f;
    host { launch; reset f; host_barrier; launch; }
    kernel { if (rank == 0) { if (launch_id == 1) TNOTIFY(f @ 1, 1, Set); }
             else if (launch_id == 1) TWAIT(f, 1, EQ); }"""
    assert violated(waiting) == set()  # the barrier orders the reset before the notify
    racy = waiting.replace("host_barrier; ", "")
    assert violated(racy) == {"lost_notification", "deadlock"}


def test_lost_notification_message_names_writer_and_wait():
    r = check_text(_two_sets(1, 2, "EQ", 1))
    v = [v for v in r.violations if v.property == "lost_notification"][0]
    assert "replaced f@1 = 1 with 2" in v.message
    assert "written by TNOTIFY at t.sig:3:24 (rank 0 block 0)" in v.message
    assert "the wait at t.sig:4:12 (EQ 1)" in v.message
    assert [e.text for e in v.trace[-1].effects] == [
        "f@1: 1 -> 2", "overwrites the unread value 1 of f@1 (not read by rank 1 block 0 of launch 0)",
        "rank 0 block 0 returns"]


def test_solver_gives_the_smallest_witness_and_caches():
    from checker import solver

    assert solver.as_intervals([5, 1, 2, 3, 7, 6]) == ((1, 3), (5, 7))
    assert solver.distinguishing_operand("GE", ((0, 10),), 5, 2) == 3
    assert solver.distinguishing_operand("GE", ((0, 10),), 2, 5) is None
    assert solver.distinguishing_operand("EQ", ((1, 1), (4, 4)), 4, 1) == 4
    assert solver.distinguishing_operand("NE", ((7, 7),), 1, 7) == 7
    assert solver.distinguishing_operand("LT", ((-3, 3),), -2, 0) == -1
    info = solver.distinguishing_operand.cache_info()
    solver.distinguishing_operand("GE", ((0, 10),), 5, 2)
    assert solver.distinguishing_operand.cache_info().hits == info.hits + 1


# ---- lost notification per reader and per launch (contract section 5)


def _lost(r):
    return [v for v in r.violations if v.property == "lost_notification"]


def test_doorbell_whose_readers_are_done_is_not_lost():
    # The second arrival on the doorbell may come after rank 0 passed its GE 1 wait; the host
    # clears it after the launch returned: its readers (the launch-0 kernel) are done.
    text = """ranks 3; signal bell;
    host { launch; host_barrier; reset bell; host_barrier; launch; }
    kernel { if (rank != 0) TNOTIFY(bell @ 0, 1, AtomicAdd); else TWAIT(bell, 1, GE); }"""
    assert violated(text) == set()


def test_a_second_readers_loss_counts():
    # rank 1 block 0 reads the 1 and acknowledges; rank 0 then Sets 2, which rank 1 block 1
    # may not have read yet: lost for that reader (and a deadlock).
    text = """ranks 2; blocks 2; signal f; signal ack;
    kernel {
      if (rank == 0) { if (block == 0) { TNOTIFY(f @ 1, 1, Set); TWAIT(ack, 1, GE); TNOTIFY(f @ 1, 2, Set); } }
      else { if (block == 0) { TWAIT(f, 1, EQ); TNOTIFY(ack @ 0, 1, Set); } else { TWAIT(f, 1, EQ); } }
    }"""
    r = check_text(text)
    assert set(r.violated) == {"lost_notification", "deadlock"}
    assert "not read yet by rank 1 block 1 of launch 0" in _lost(r)[0].message


def test_next_launch_notification_erased_by_a_host_reset_is_lost():
    text = """ranks 2; signal flag;
    host { for (int l = 0; l < 2; l++) { launch; reset flag; } }
    kernel { if (rank == 0) TNOTIFY(flag @ 1, 1, Set); else TWAIT(flag, 1, GE); }"""
    r = check_text(text)
    assert set(r.violated) == {"lost_notification", "deadlock"}
    assert "not read yet by rank 1 block 0 of launch 1" in _lost(r)[0].message
    fixed = text.replace("reset flag; }", "reset flag; host_barrier; }")
    assert violated(fixed) == set()


def test_a_value_the_reader_no_longer_waits_for_is_not_lost():
    # rank 1 waits EQ 1 once; the producer's later Set(0) cleanup may come before or after,
    # but once rank 1 passed its only wait nothing it waits for can be lost.
    text = """ranks 2; signal f; signal ack;
    kernel { if (rank == 0) { TNOTIFY(f @ 1, 1, Set); TWAIT(ack, 1, EQ); TNOTIFY(f @ 1, 0, Set); }
             else { TWAIT(f, 1, EQ); TNOTIFY(ack @ 0, 1, Set); } }"""
    assert violated(text) == set()


def test_fail_fast_stops_at_the_first_unexpected_violation():
    counter = """param N = 7; ranks N; signal count;
    kernel { for (int p = 0; p < nranks; p++) if (p != rank) TNOTIFY(count @ p, 1, Set);
             TWAIT(count, nranks - 1, GE); }"""
    r = check_text(counter, order="dfs", fail_fast=True)
    assert r.status == "fail" and r.violated == ["deadlock"] and r.stop.reason == "fail_fast"
    assert r.stats.states < 200
    # an expected violation does not stop the run
    r = check_text("expect deadlock;" + counter, {"N": 3}, fail_fast=True)
    assert r.status == "pass" and r.stop is None


def test_program_of_every_shipped_spec_pickles():
    import pickle
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for path in sorted((root / "specs").glob("*.sig")) + sorted((root / "tests" / "regressions").glob("*.sig")):
        program = compile_text(path.read_text(), file=path.as_posix())
        assert pickle.loads(pickle.dumps(program)) == program, path
