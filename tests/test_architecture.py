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
    # the model's interface, plain result data, the visited-state store and the compiled search
    assert deps <= {"model.system", "checker.result", "checker.store", "checker.native"}
    native = {m for m in imports(ROOT / "checker" / "native.py") if m.startswith(("checker", "model"))}
    assert native <= {"model.system", "checker.result", "checker.explore"}  # the same interface
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


# ---- the seams of "One house" (docs/developers.md) ---------------------------------------------

PACKAGES = ("model", "checker", "frontends")
COMPARISON_NAMES = {"EQ", "NE", "GT", "GE", "LT", "LE"}
NAMEDTUPLE_API = {"_replace", "_fields", "_asdict", "_make"}


def all_modules(packages=PACKAGES):
    return sorted(p for pkg in packages for p in (ROOT / pkg).rglob("*.py"))


def rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


def test_frontends_import_only_the_language():
    for p in all_modules(("frontends",)):
        bad = {m for m in imports(p) if m.startswith("checker")}
        assert not bad, f"{rel(p)} imports {bad}: a frontend knows the language (model/), not the checker"


def test_the_frontend_core_and_the_mlir_reader_stay_apart_from_the_cpp_reader():
    for p in all_modules(("frontends/core", "frontends/mlir")):
        bad = {m for m in imports(p) if m.startswith("frontends.cpp") or m == "tree_sitter_cpp"}
        assert not bad, f"{rel(p)} imports {bad}"
    for p in all_modules(("frontends/core",)):
        assert not {m for m in imports(p) if m.startswith(("tree_sitter", "frontends.mlir"))}, rel(p)


def test_importing_the_mlir_reader_loads_no_cpp_parser():
    import subprocess
    import sys

    code = "import sys, frontends.mlir; print(sorted(m for m in sys.modules if m == 'tree_sitter_cpp' " \
           "or m.startswith('frontends.cpp')))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_private_name_is_imported_from_another_module():
    for p in all_modules():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                assert not private, f"{rel(p)}:{node.lineno}: imports {private} from {node.module}"


def _defined_private(tree) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name.startswith("_"):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and node.attr.startswith("_"):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_no_private_attribute_of_another_module_is_read():
    """`system._table` from the reductions was how the corridors leaked: a module may read the
    private attributes only of objects its own code defines (and the namedtuple API)."""
    for p in all_modules():
        tree = ast.parse(p.read_text())
        own = _defined_private(tree) | NAMEDTUPLE_API
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                assert node.attr in own, f"{rel(p)}:{node.lineno}: reads {ast.unparse(node)}, private to another module"


def test_states_are_read_by_field_name_outside_the_system_and_the_store():
    allowed = {"model/system.py", "checker/store.py"}
    for p in all_modules(("model", "checker")):
        if rel(p) in allowed:
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                    and isinstance(node.slice.value, int):
                v = node.value
                named = (isinstance(v, ast.Name) and v.id in ("state", "st", "init", "nxt_state")) or \
                    (isinstance(v, ast.Attribute) and v.attr == "next")
                assert not named, f"{rel(p)}:{node.lineno}: {ast.unparse(node)}: read a State by field name"


def test_the_comparisons_are_spelled_out_only_in_the_vocabulary():
    """One table (model/vocabulary.py): a tuple, set or dict that names three or more of the six
    comparisons anywhere else is a hand-kept copy."""
    for p in all_modules():
        if rel(p) == "model/vocabulary.py":
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            items = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else []
            names = {x.value for x in items if isinstance(x, ast.Constant) and x.value in COMPARISON_NAMES}
            assert len(names) < 3, f"{rel(p)}:{node.lineno}: a table of comparisons; import model.vocabulary"


def test_verdict_names_come_from_the_catalog():
    from model import vocabulary

    for p in all_modules():
        if rel(p) == "model/vocabulary.py":
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                names = {x.value for x in node.elts if isinstance(x, ast.Constant)} & set(vocabulary.PROPERTIES)
                assert len(names) < 3, f"{rel(p)}:{node.lineno}: a list of verdicts; use model.vocabulary"


def test_skeleton_statements_are_built_with_what_they_read():
    """The readers build skeleton statements only through the builders of
    frontends/core/skeleton.py (`decl`, `sync`, `if_`, ...), which take the values a statement
    reads; nothing constructs a `Line` or `Block` directly, so pruning never has to guess a
    statement's reads from its text."""
    direct = []
    for pkg in ("frontends/cpp", "frontends/mlir", "frontends/core"):
        for p in modules(pkg):
            if p.name == "skeleton.py":
                continue
            tree = ast.parse(p.read_text())
            aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                       and n.module == "frontends.core" for a in n.names if a.name == "skeleton"}
            named = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                     and n.module == "frontends.core.skeleton" for a in n.names if a.name in ("Line", "Block")}
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    f = node.func
                    if (isinstance(f, ast.Name) and f.id in named) or (
                            isinstance(f, ast.Attribute) and f.attr in ("Line", "Block")
                            and isinstance(f.value, ast.Name) and f.value.id in aliases):
                        direct.append(f"{p.relative_to(ROOT)}:{node.lineno}")
    assert direct == []
