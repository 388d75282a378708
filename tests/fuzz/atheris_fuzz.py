"""Coverage-guided fuzzing of the parser, the checks and the checker with atheris.

Not part of the test suite (atheris is optional). Run, for example:
    pip install atheris
    python tests/fuzz/atheris_fuzz.py -atheris_runs=200000 -max_len=2000 specs/
(the folder argument seeds the corpus with the shipped specs). Any exception other than a
reported spec error is a crash and stops the run with the input that caused it.
"""

import sys

import atheris

with atheris.instrument_imports():
    from checker.check import Options, check_program
    from model import SpecErrors, compile_spec, parse

OPTIONS = Options(max_states=500, timeout=2)


def one_input(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    try:
        program = compile_spec(parse(text, "fuzz.sig"))
    except SpecErrors as e:
        e.render()
        return
    result = check_program(program, "fuzz.sig", OPTIONS)
    assert result.status in ("pass", "fail", "inconclusive")


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
