"""Semantic checks (all errors collected, with locations) and lowering results."""

import pytest

from model import SpecErrors, compile_spec, parse
from model import ir


def errors(text: str, overrides=None):
    with pytest.raises(SpecErrors) as info:
        compile_spec(parse(text, "s.sig"), overrides)
    return [(e.message, e.span.line if e.span else None, e.span.col if e.span else None)
            for e in info.value.errors]


def program(text: str, overrides=None) -> ir.Program:
    return compile_spec(parse(text, "s.sig"), overrides)


BAD = [
    ("ranks 2; signal f; signal f; kernel {}", "'f' is declared twice", 1, 20),
    ("param N = 1; param N = 2; ranks 1; kernel {}", "'N' is declared twice", 1, 14),
    ("ranks 2; kernel { x = 1; }", "undeclared name 'x'", 1, 19),
    ("ranks 2; kernel { TWAIT(g, 1, EQ); }", "undeclared signal 'g'", 1, 25),
    ("ranks 2; signal f[2]; kernel { TNOTIFY(f, 1, Set); }", "TNOTIFY writes one signal element", 1, 40),
    ("ranks 2; signal f[2][2]; kernel { TNOTIFY(f[0][0:2], 1, Set); }", "TNOTIFY writes one signal element", 1, 43),
    ("ranks 2; signal f; kernel { TNOTIFY(f, 1, Add); }", "unknown notify op 'Add'", 1, 43),
    ("ranks 2; signal f; kernel { TWAIT(f, 1, EQUAL); }", "unknown comparison 'EQUAL'", 1, 41),
    ("ranks 2; signal f; kernel { TWAIT(f, 1, NotifyOp::EQ); }", "unknown comparison 'NotifyOp::EQ'", 1, 41),
    ("ranks 2; signal f; kernel { launch; }", "'launch' is a host statement", 1, 29),
    ("ranks 2; signal f; kernel { reset f; }", "'reset' is a host statement", 1, 29),
    ("ranks 2; kernel { host_barrier; }", "'host_barrier' is a host statement", 1, 19),
    ("ranks 2; signal f[1][1][1][1][1][1]; kernel {}", "signal 'f' has 6 dimensions", 1, 10),
    ("ranks 2; signal f[1000000]; kernel {}", "signal dimension 1000000 is too large", 1, 19),
    ("ranks 2; signal f[1000][1000]; kernel {}", "signal 'f' brings the signal memory", 1, 10),
    ("ranks 0; kernel {}", "ranks must be at least 1, not 0", 1, 7),
    ("ranks -3; kernel {}", "ranks must be at least 1, not -3", 1, 7),
    ("ranks 1000000000000000000000000000000; kernel {}", "ranks 1000000000000000000000000000000 is more", 1, 7),
    ("ranks 2; signal f[0]; kernel {}", "signal dimension must be at least 1, not 0", 1, 19),
    ("param N = 0; const M = 4 / N; ranks 1; kernel {}", "in a constant expression: division by zero", 1, 24),
    ("ranks 2; signal f = 4294967296; kernel {}", "initial value 4294967296 does not fit in int32", 1, 21),
    ("ranks 2; signal f; kernel { TNOTIFY(f, 4294967296, Set); }", "Set value 4294967296 does not fit", 1, 40),
    ("ranks 1; kernel { break; }", "'break' outside a loop", 1, 19),
    ("ranks 1; kernel { rank = 1; }", "'rank' is read-only", 1, 19),
    ("ranks 1; kernel { int rank = 1; }", "'rank' is a built-in name", 1, 19),
    ("ranks 1; host { int x = block; launch; } kernel {}", "'block' is only available in the kernel", 1, 25),
    ("ranks 1; signal f; kernel { int x = f; }", "signal 'f' can only be used in TNOTIFY", 1, 37),
    ("ranks 1; kernel { int x = 1; int x = 2; }", "'x' is already declared in this block", 1, 30),
    ("ranks 1; expect hang; kernel {}", "unknown verdict 'hang'", 1, 10),
    ("ranks 1; expect deadlok; kernel {}", "unknown verdict 'deadlok' (did you mean 'deadlock'?)", 1, 10),
    ("ranks 1; expect ok; expect deadlock; kernel {}", "'expect ok' cannot be combined", 1, 10),
    ("ranks 1; check clean; kernel {}", "unknown check 'clean'", 1, 10),
    ("ranks 1;", "the spec has no 'kernel { ... }'", 1, 1),
    ("kernel {}", "the spec has no 'ranks N;' declaration", 1, 1),
    ("ranks 1; kernel {} kernel {}", "'kernel' is declared twice", 1, 20),
    ("const A = B; const B = 1; ranks 1; kernel {}", "'B' is not a param or an earlier const", 1, 11),
    ("ranks 1; signal f[2]; kernel { TWAIT(f[0][1], 1, EQ); }", "signal 'f' has 1 dimension(s) but 2 are indexed", 1, 38),
]


@pytest.mark.parametrize("text,message,line,col", BAD)
def test_semantic_error(text, message, line, col):
    found = errors(text)
    assert any(m.startswith(message) and (l, c) == (line, col) for m, l, c in found), found


def test_all_errors_are_collected_in_source_order():
    found = errors("ranks 1;\nkernel {\n  x = 1;\n  TWAIT(g, 1, EQ);\n  launch;\n}\n")
    assert [(m.split("'")[0], l) for m, l, _ in found] == [("undeclared name ", 3), ("undeclared signal ", 4),
                                                          ("", 5)]


def test_unknown_define_is_an_error_naming_the_file():
    with pytest.raises(SpecErrors) as info:
        compile_spec(parse("param N = 2; ranks N; kernel {}", "s.sig"), {"M": 3})
    assert info.value.render() == "s.sig: error: M=3 (from -D or --sweep): the spec declares no param 'M'"


def test_params_consts_and_overrides():
    p = program("param N = 2; const M = N * 2 + 1; ranks M; blocks N; signal f[M][2] = -1; kernel {}", {"N": 3})
    assert (p.nranks, p.nblocks) == (7, 3)
    assert p.params == (("N", 3),)
    sig = p.signals[0]
    assert (sig.dims, sig.init, sig.size, p.elems_per_rank) == ((7, 2), -1, 14, 14)


def test_default_name_host_and_expects():
    p = program("ranks 1; expect deadlock; expect error; expect deadlock; kernel {}")
    assert p.name == "s"
    assert p.expects == ("deadlock", "error")
    assert [type(i) for i in p.host.instrs] == [ir.Launch, ir.Join, ir.Return]
    assert program("ranks 1; expect ok; kernel {}").expects == ()


def test_ttest_is_hoisted_with_short_circuit():
    p = program("ranks 1; signal f; kernel { int n = 0; if (n > 0 && TTEST(f, 1, EQ)) n = 2; }")
    ops = [type(i) for i in p.kernel.instrs]
    # the TTEST is only reached when n > 0: a Branch guards it
    t = ops.index(ir.Test)
    assert ir.Branch in ops[:t]


def test_dead_locals_are_not_kept():
    from model.analysis import liveness

    p = program("ranks 1; signal f; kernel { for (int i = 0; i < 2; i++) { TWAIT(f, 0, EQ); } TWAIT(f, 0, GE); "
                "int x = rank; TNOTIFY(f, x, Set); TWAIT(f, 0, GE); }")
    live = liveness(p.kernel)
    waits = [pc for pc, i in enumerate(p.kernel.instrs) if isinstance(i, ir.Wait)]
    assert live[waits[0]] == {0}  # the loop counter, in the loop
    assert live[waits[1]] == frozenset()  # after the loop
    notify = next(pc for pc, i in enumerate(p.kernel.instrs) if isinstance(i, ir.Notify))
    assert live[notify] == {0} and live[waits[2]] == frozenset()  # x is dead once notified


def test_program_pickles():
    import pickle

    p = program("ranks 2; signal f[2]; host { launch; reset f; } kernel { if (TTEST(f[rank], 1, EQ) || rank > 0) "
                "TNOTIFY(f[0] @ (rank + 1) % nranks, 1, Set); TWAIT(f[0:2], 0, GE); }")
    assert pickle.loads(pickle.dumps(p)) == p


def test_launch_id_use_is_tracked():
    assert program("ranks 1; kernel { int e = launch_id; }").uses_launch_id
    assert not program("ranks 1; kernel { int e = rank; }").uses_launch_id


def test_statement_text_has_no_semicolon():
    p = program("ranks 1; signal f; kernel { TNOTIFY(f, 1, Set); }")
    assert p.kernel.instrs[0].text == "TNOTIFY(f, 1, Set)"


def test_bool_locals_hold_0_or_1_and_big_sums_are_errors():
    from helpers import violated

    assert violated("ranks 1; kernel { bool b = 5; assert(b == 1); b = 7; assert(b == 1); }") == set()
    assert violated("ranks 1; kernel { int y = 1 << 63; y = y + y + y; }") == {"error"}


def test_constant_atomic_add_out_of_int32_is_a_spec_error():
    assert errors("ranks 1; signal f; kernel { TNOTIFY(f, 4294967296, AtomicAdd); }")[0][0] == \
        "AtomicAdd value 4294967296 does not fit in int32"
