"""How much of each corpus kernel's signal traffic the C++ and MLIR extractions resolve.

    python bench/resolution.py [CORPUS_DIR]     # default: both corpora

The C++ corpus is tests/frontends/corpus (NAME/NAME.cpp), the MLIR one
tests/frontends/mlir_corpus (NAME/NAME.pto).

For every TNOTIFY / TWAIT / TTEST call site of every kernel in the corpus
(tests/frontends/corpus/NAME/NAME.cpp), and for each of its operands (signal, index, peer
rank, value, op/cmp), counts `full` (from the code alone), `partial` (with a config value
or a naming convention) and `none` (an assumption param), with the kernel's config
(sigproof.toml and pragmas) and without any. A kernel that cannot be extracted without
its config counts all its call sites as `none`.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from checker.kernels import frontend  # noqa: E402
from frontends.cpp import ExtractError  # noqa: E402

FIELDS = ("signal", "index", "peer", "value", "opcmp")
LEVELS = ("full", "partial", "none")
_CALL = re.compile(r"\b(TNOTIFY|TWAIT|TTEST)\s*\(|\b(?:pto\.(?:comm\.)?)?(?:tnotify|twait|ttest)\b")


def source_call_sites(folder: Path) -> int:
    """Call sites written in the kernel's folder (comments removed), for failed extractions."""
    n = 0
    for p in sorted([*folder.glob("*.[ch]*"), *folder.glob("*.pto"), *folder.glob("*.mlir")]):
        text = re.sub(r"//[^\n]*|/\*.*?\*/", "", p.read_text(), flags=re.S)
        n += len(_CALL.findall(text))
    return n


def _extract(path: str, with_config: bool):
    try:
        return frontend(Path(path)).extract([path], None if with_config else {"pragmas": False}), ""
    except ExtractError as e:
        return None, f"not extracted: {e}"


def _kernel_file(folder: Path) -> Path | None:
    return next((folder / f"{folder.name}{ext}" for ext in (".cpp", ".pto", ".mlir")
                 if (folder / f"{folder.name}{ext}").is_file()), None)


def measure(corpus: Path, with_config: bool) -> tuple[list[tuple], Counter, Counter]:
    """Per kernel: (name, sites, Counter of site resolutions, assumptions, note).

    The call sites are those found with the config (a plain GM store is a call site only
    when the config says its pointer is a signal); one the extraction without config does
    not find, or a kernel it cannot extract, counts as `none` on every operand.
    """
    rows, per_field, per_site = [], Counter(), Counter()
    for folder in sorted(p for p in corpus.iterdir() if _kernel_file(p) is not None):
        path = _kernel_file(folder).as_posix()
        reference, _ = _extract(path, True)
        ex, note = _extract(path, with_config)
        found = {(c.file, c.line, c.col): c for c in ex.call_sites} if ex else {}
        keys = [(c.file, c.line, c.col) for c in reference.call_sites] if reference else []
        keys += [k for k in found if k not in keys]
        n = max(len(keys), source_call_sites(folder) if ex is None else 0)
        sites = Counter()
        for k in keys:
            c = found.get(k)
            levels = c.levels() if c else ("none",) * len(FIELDS)
            sites[c.resolution if c else "none"] += 1
            for f, level in zip(FIELDS, levels):
                per_field[(f, level)] += 1
        if n > len(keys):
            sites["none"] += n - len(keys)
            for f in FIELDS:
                per_field[(f, "none")] += n - len(keys)
        per_site.update(sites)
        rows.append((folder.name, n, sites, len(ex.assumptions) if ex else 0, note))
    return rows, per_field, per_site


def report(corpus: Path, with_config: bool) -> Counter:
    rows, per_field, per_site = measure(corpus, with_config)
    title = "with config (sigproof.toml and pragmas)" if with_config else "without config"
    print(f"## {corpus.name}: {title}")
    print(f"{'kernel':<20} {'sites':>5} {'full':>5} {'partial':>7} {'none':>5} {'assumptions':>11}")
    for name, n, sites, nassume, note in rows:
        print(f"{name:<20} {n:>5} {sites['full']:>5} {sites['partial']:>7} {sites['none']:>5} {nassume:>11}"
              + (f"  {note}" if note else ""))
    total = sum(per_site.values())
    print(f"{'call sites':<20} {total:>5} " + " ".join(
        f"{per_site[lv]:>{w}} ({100 * per_site[lv] / total:.1f}%)" for lv, w in zip(LEVELS, (5, 7, 5))))
    print("operands:")
    for f in FIELDS:
        print(f"  {f:<8} " + "  ".join(f"{lv} {per_field[(f, lv)]:>3}" for lv in LEVELS))
    print()
    return per_site


def main() -> None:
    corpora = [Path(sys.argv[1])] if len(sys.argv) > 1 else [ROOT / "tests" / "frontends" / name
                                                             for name in ("corpus", "mlir_corpus")]
    together = {True: Counter(), False: Counter()}
    for corpus in corpora:
        for with_config in (True, False):
            together[with_config] += report(corpus, with_config)
    if len(corpora) > 1:
        print("## all corpora")
        for with_config in (True, False):
            c = together[with_config]
            total = sum(c.values())
            print(f"{'with config' if with_config else 'without config':<20} {total:>5} " + " ".join(
                f"{c[lv]:>{w}} ({100 * c[lv] / total:.1f}%)" for lv, w in zip(LEVELS, (5, 7, 5))))


if __name__ == "__main__":
    main()
