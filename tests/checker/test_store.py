"""The visited-state stores (checker/store.py): packed states round-trip, the exact store is a
set, and the fingerprint store gives the exact store's verdicts and counts (barring a
collision, which the bound says is far below 1e-9 at these sizes) on every spec and on
generated protocols, with the collision bound in its verdict."""

from __future__ import annotations

import io
import json
from collections import deque
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, reject, settings
from oracles.strategies import specs

from checker.check import Options, check_program
from checker.cli import run
from checker.explore import explore
from checker.properties import Monitor
from checker.store import ExactStore, StateCodec, collision_bound, make_store
from model import SpecErrors, System, compile_spec, parse
from model.system import State

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted(p.relative_to(ROOT).as_posix() for d in ("specs", "tests/regressions")
               for p in (ROOT / d).glob("*.sig"))
ROUND_TRIP = ["specs/epoch_counter.sig", "specs/two_level_barrier.sig", "specs/async_put_wait_event.sig",
              "specs/bug_host_reset_race.sig", "specs/cas_election.sig", "specs/ring_pipeline_ge.sig"]


def program_of(spec: str, params=None):
    return compile_spec(parse((ROOT / spec).read_text(), spec), params or {})


def reachable(system, limit: int = 20_000) -> list:
    init, _ = system.initial()
    seen, order, queue = {init}, [init], deque([init])
    while queue and len(order) < limit:
        for step in system.successors(queue.popleft()):
            if step.next not in seen:
                seen.add(step.next)
                order.append(step.next)
                queue.append(step.next)
    return order


@pytest.mark.parametrize("chunk", ["whole", "rank", 1, 3])
@pytest.mark.parametrize("spec", ROUND_TRIP)
def test_packed_states_round_trip(spec, chunk):
    """Whatever the chunks a signal vector and the ghost marks are interned in (a rank's
    worth as the explorer cuts them, single elements, chunks that straddle ranks), a state
    packs and unpacks to itself."""
    system = System(program_of(spec))
    states = reachable(system)
    codec = StateCodec(system.nprocs, chunk={"whole": 0, "rank": system.E}.get(chunk, chunk),
                       ghost_chunk={"whole": 0, "rank": -(-system.G // system.R)}.get(chunk, chunk))
    keys = [codec.pack(s) for s in states]
    assert all(isinstance(k, bytes) and len(k) == codec.size for k in keys)
    assert len(set(keys)) == len(states)  # distinct states, distinct keys
    for s, k in zip(states, keys):
        back = codec.unpack(k)
        assert back == s and isinstance(back, State)
        assert codec.pack(back) == k


@pytest.mark.parametrize("kind", ["exact", "fingerprint"])
def test_store_is_a_set_with_indices_in_order_of_discovery(kind):
    system = System(program_of("specs/epoch_counter.sig", {"N": 3}))
    states = reachable(system)
    store = make_store(kind, system.nprocs)
    for n, s in enumerate(states):
        assert store.add(store.codec.pack(s)) == (n, True)
    for n, s in enumerate(states):
        assert store.add(store.codec.pack(s)) == (n, False)
        assert store.find(store.codec.pack(s)) == n
    assert len(store) == len(states)
    if kind == "exact":
        assert all(store.state(n) == s for n, s in enumerate(states))


def test_entry_ids_widen_and_stored_keys_are_repacked():
    """More than 256 (then 65,536) distinct process entries: ids grow from 1 to 2 to 4 bytes
    and the states stored before are re-packed, still found, still decoded."""
    codec = StateCodec(2)
    store = ExactStore(codec)
    states = [State(((0, 0, (k,)), None), (k % 7,), (), (), ()) for k in range(70_000)]
    sizes = set()
    for n, s in enumerate(states):
        assert store.add(codec.pack(s)) == (n, True)
        sizes.add(codec.size)
    assert sizes == {1 * 2 + 8, 2 * 2 + 8, 4 * 2 + 8}
    for n in (0, 255, 256, 65_535, 65_536, 69_999):
        assert store.find(codec.pack(states[n])) == n
        assert store.state(n) == states[n]
    assert store.add(codec.pack(states[3])) == (3, False)


def test_signal_vectors_of_any_length_round_trip_in_chunks():
    """The last chunk runs to the end of the vector, so even vectors of other lengths than the
    first one (never within a run, but the codec does not rely on it) stay distinct."""
    codec = StateCodec(1, chunk=2)
    vectors = [(1, 2, 3, 4), (1, 2, 3, 4, 5), (1, 2), (1, 2, 3), (), (3, 4, 1, 2), (1, 2, 34)]
    keys = [codec.pack(State(((0, 0, ()),), v, (), (), ())) for v in vectors]
    assert len(set(keys)) == len(vectors)
    assert [codec.unpack(k).signals for k in keys] == vectors


def test_ghost_marks_in_chunks_round_trip_and_stay_apart_from_no_marks():
    """Ghost marks interned in chunks are kept by id in the state's key: the first marks (id
    0, all clear) must not be taken for a state without marks, and every length decodes."""
    codec = StateCodec(1, ghost_chunk=2)
    marks = [(0, 0, 0), (), (0, 0, 0, 0, 0), (1, 0, 0), (0, 0, 1), (0, 0)]
    keys = [codec.pack(State(((0, 0, ()),), (5,), g, (), ())) for g in marks]
    assert len(set(keys)) == len(marks)
    assert [codec.unpack(k).ghost for k in keys] == marks
    assert codec.unpack(codec.pack(State(((0, 0, ()),), (5,), (0, 0, 0), (1,), ()))).ghost == (0, 0, 0)


def test_fingerprint_codec_never_widens():
    codec = StateCodec(2, wide=True)
    size = codec.size
    for k in range(300):
        codec.pack(State(((0, 0, (k,)), None), (0,), (), (), ()))
    assert codec.size == size and codec.generation == 0


def test_collision_bound():
    assert collision_bound(0) == 0 and collision_bound(1) == 0
    assert collision_bound(2) == 2.0**-64
    assert collision_bound(10**6) == pytest.approx(10**6 * (10**6 - 1) / 2**65)
    assert collision_bound(2**40) == 1.0  # capped


def test_exploration_rebuilds_states_from_either_store():
    program = program_of("specs/bug_counter_set_instead_of_add.sig")
    system = System(program)
    exact = explore(system, Monitor(system), store="exact")
    fp = explore(system, Monitor(system), store="fingerprint")
    assert len(exact.states) == len(fp.states)
    assert list(exact.states) == list(fp.states)  # fingerprints: rebuilt by replaying the links
    assert exact.store_bytes() > 0 and fp.store_bytes() > 0


def _summary(result) -> tuple:
    return (result.status, result.violated, result.stats.states, result.stats.transitions,
            [(v.property, v.message, len(v.trace)) for v in result.violations])


@pytest.mark.parametrize("spec", SPECS)
def test_fingerprint_store_agrees_with_exact_on_every_spec(spec):
    program = program_of(spec)
    exact = check_program(program, spec, Options())
    fp = check_program(program, spec, Options(store="fingerprint"))
    assert _summary(fp) == _summary(exact)
    assert exact.stats.store == "exact" and exact.stats.collision_probability is None
    assert fp.stats.store == "fingerprint"
    assert fp.stats.collision_probability == collision_bound(fp.stats.states) < 1e-9


@pytest.mark.parametrize("spec", ["specs/all_to_all_barrier.sig", "specs/epoch_counter.sig",
                                  "specs/bug_reset_race.sig", "specs/two_level_barrier.sig"])
def test_fingerprint_store_agrees_unreduced_and_dfs(spec):
    program = program_of(spec)
    for options in (Options(por=False), Options(order="dfs")):
        exact = check_program(program, spec, options)
        fp = check_program(program, spec, Options(**{**options.__dict__, "store": "fingerprint"}))
        assert _summary(fp) == _summary(exact)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(specs())
def test_fingerprint_store_agrees_on_generated_protocols(text):
    try:
        program = compile_spec(parse(text, "x.sig"), {})
    except SpecErrors:
        reject()
    exact = check_program(program, "x.sig", Options(max_states=4000))
    if exact.stop is not None:
        reject()
    for por in (True, False):
        a = check_program(program, "x.sig", Options(por=por))
        b = check_program(program, "x.sig", Options(por=por, store="fingerprint"))
        assert _summary(a) == _summary(b)


def test_fingerprint_run_says_so_in_text_and_json():
    out, err = io.StringIO(), io.StringIO()
    assert run(["check", "specs/epoch_counter.sig", "--store", "fingerprint", "--no-timing"], out, err) == 0
    first = out.getvalue().splitlines()[0]
    assert "PASS: ok (64-bit fingerprint store: a hash collision may have hidden a state, probability <= " in first
    out = io.StringIO()
    assert run(["check", "specs/epoch_counter.sig", "--store", "fingerprint", "--format", "json"], out, err) == 0
    stats = json.loads(out.getvalue())["results"][0]["stats"]
    assert stats["store"] == "fingerprint" and stats["fingerprint_bits"] == 64
    assert 0 < stats["collision_probability"] < 1e-9
    out = io.StringIO()
    assert run(["check", "specs/epoch_counter.sig", "--format", "json"], out, err) == 0
    stats = json.loads(out.getvalue())["results"][0]["stats"]
    assert stats["store"] == "exact" and "collision_probability" not in stats


def test_certificate_needs_the_exact_store(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    code = run(["check", "specs/epoch_counter.sig", "--store", "fingerprint", "--certificate",
                str(tmp_path / "c.json")], out, err)
    assert code == 2 and "--certificate needs the exact store" in err.getvalue()
    assert not (tmp_path / "c.json").exists()


def test_entry_ids_widen_in_the_middle_of_a_run():
    """A kernel with 300 distinct local states: the exact store's entry ids grow
    from 1 to 2 bytes during the search, reduced and unreduced, and the counts stay those of
    a plain search over State tuples."""
    text = """
    ranks 2;
    signal flag[2];
    kernel {
        if (rank == 0) {
            for (int i = 0; i < 300; i++) {
                TNOTIFY(flag[0] @ 1, i, Set);
            }
        } else {
            TWAIT(flag[1], 0, GE);
        }
    }
    """
    program = compile_spec(parse(text, "wide.sig"), {})
    system = System(program)
    expected = len(reachable(system, limit=10**6))
    for por in (False, True):
        exact = check_program(program, "wide.sig", Options(por=por))
        fp = check_program(program, "wide.sig", Options(por=por, store="fingerprint"))
        assert _summary(exact) == _summary(fp)
        if not por:
            assert exact.stats.states == expected
    ex = explore(system, Monitor(system), engine="python")  # the Python store's codec (the compiled one has no widths)
    assert ex.store.codec.generation >= 1  # it did widen
    assert len(ex.states) == expected and set(ex.states) == set(reachable(system, limit=10**6))
