"""`sigproof prove` with signal dimensions computed from a symbolic param (`signal log[2 * N]`):
model/params.py keeps them as expressions over the params (`Sizes.dims_of`), the guarded
commands and the range obligations read them at every size, and a dimension that may fall
below 1 in the range claimed is an obligation of its own."""

from pathlib import Path

from helpers import proved_once, parse, prover_alone

from checker import gcs
from checker.prove import FAIL, PROVED, UNPROVED, prove_file
from model import compile_spec, ir
from model.params import Sizes

FIXTURES = Path(__file__).resolve().parent / "prove_dims"
TWO_ROWS = str(FIXTURES / "two_rows.sig")
ONE_SHORT = str(FIXTURES / "one_short.sig")
EMPTY_AT_TWO = str(FIXTURES / "empty_at_two.sig")


proved = proved_once


def test_a_dimension_is_an_expression_of_the_symbolic_params():
    spec = parse(Path(TWO_ROWS).read_text(), TWO_ROWS)
    base = compile_spec(spec, {})
    sizes = Sizes.of(spec, base, {"N"})
    (dim,) = sizes.dims_of("log")
    assert isinstance(dim, ir.Binary) and dim.op == "*"
    assert [sizes.dim_value(dim, {"N": n}) for n in (2, 5, 1000)] == [4, 10, 2000]
    assert sizes.dims_of("flag") == ()
    fixed = Sizes.of(spec, base, set())  # N not symbolic: the folded value, as before
    assert fixed.dims_of("log") == (6,)


def test_an_index_in_range_of_a_computed_dimension_is_proved_for_every_size():
    proof = proved(TWO_ROWS)
    assert proof.verdict == PROVED, (proof.claim, proof.reasons)
    assert "error" in proof.properties


def test_one_slot_short_fails_at_two_ranks_and_is_never_proved_by_the_prover_alone():
    proof = prove_file(ONE_SHORT)
    assert proof.verdict == FAIL and proof.claim == "deadlock and error at N = 2"
    alone = prover_alone(ONE_SHORT)
    assert alone.verdict == UNPROVED
    assert alone.claim == "the small sizes could not be enumerated for mining (index out of bounds)", alone.claim


def test_a_dimension_that_may_fall_below_one_is_not_proved():
    """At N = 2 `signal spare[N - 2]` has no element and the spec does not compile: not ok
    for every N >= 2, although no statement touches `spare`."""
    proof = proved(EMPTY_AT_TWO)
    assert proof.verdict == UNPROVED and proof.exit_code == 3
    assert proof.claim.startswith("not proved: a dimension of signal `spare` may be below 1 at ")
    assert [c.text() for c in proof.checked][0] == "N=2 error"
    alone = prover_alone(EMPTY_AT_TWO)
    assert alone.verdict == UNPROVED
    assert any("a dimension of signal `spare` may be below 1" in r for r in alone.reasons), alone.reasons


def test_from_three_ranks_the_same_spec_is_proved():
    proof = prove_file(EMPTY_AT_TWO, ["N"], {"N": 3})
    assert proof.verdict == PROVED, (proof.claim, proof.reasons)
    assert proof.claim == "ok for all N >= 3"


def test_the_commands_lay_the_signals_out_at_each_size():
    spec = parse(Path(TWO_ROWS).read_text(), TWO_ROWS)
    base = compile_spec(spec, {})
    gc = gcs.translate(base, Sizes.of(spec, base, {"N"}))
    for n in (2, 3, 7):
        conc = gcs.Concrete(gc, {"N": n})
        assert conc.layout["log"][1] == (2 * n,)
        assert conc.E == 2 * n + 1


def test_a_dimension_that_divides_by_zero_at_a_small_size_is_unproved(tmp_path):
    """`signal s[N / (N - 2)]` does not compile at N = 2: UNPROVED, said at the dimension, no
    traceback (the commands cannot be laid out at that size either)."""
    import io  # noqa: PLC0415

    from checker.cli import run  # noqa: PLC0415

    path = tmp_path / "div.sig"
    path.write_text("param N = 3;\nranks N;\nsignal s[N / (N - 2)];\nkernel {\n    TNOTIFY(s[0] @ rank, 1, Set);\n}\n")
    out, err = io.StringIO(), io.StringIO()
    assert run(["prove", str(path), "--no-timing"], out, err) == 3, err.getvalue()
    text = out.getvalue()
    assert text.startswith(f"{path}: UNPROVED: ")
    assert f"N=2: {path}:3:10: error: in a constant expression: division by zero" in text
    assert "checked explicitly: N=2 error, N=3 ok, N=4 ok" in text
