"""The layering the style guide asks for, checked on the source."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def modules(package: str):
    return sorted((ROOT / package).glob("*.py"))


def test_z3_is_imported_by_exactly_the_solver_modules():
    users = [p.relative_to(ROOT).as_posix() for pkg in ("model", "checker") for p in modules(pkg)
             if any(m == "z3" or m.startswith("z3.") for m in imports(p))]
    assert users == ["checker/prove_smt.py", "checker/solver.py"]  # the lost-notification test; the prover


def test_model_knows_nothing_of_the_checker():
    for p in modules("model"):
        assert not any(m.startswith("checker") for m in imports(p)), p


def test_explorer_knows_only_the_model_interface():
    deps = {m for m in imports(ROOT / "checker" / "explore.py") if m.startswith(("checker", "model"))}
    # the model's interface, plain result data, and the visited-state store
    assert deps <= {"model.system", "checker.result", "checker.store"}
    store = {m for m in imports(ROOT / "checker" / "store.py") if m.startswith(("checker", "model"))}
    assert store <= {"model.system"}  # the store packs States and knows nothing else


def test_reporters_see_only_results():
    deps = {m for m in imports(ROOT / "checker" / "report.py") if m.startswith(("checker", "model"))}
    assert deps == {"checker.result"}


def test_no_eval_or_exec_of_user_text():
    for pkg in ("model", "checker"):
        for p in modules(pkg):
            tree = ast.parse(p.read_text())
            calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            assert not calls & {"eval", "exec", "compile"}, p
