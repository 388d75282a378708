"""Issue 20, item 7: pypto's collective templates as kernels, for bench/public_kernels.py.

    python bench/pypto_templates.py PYPTO_TREE OUT
    python bench/public_kernels.py OUT

PYPTO_TREE is an exported checkout of github.com/hw-native-sys/pypto. Each
`python/pypto/runtime/builtins/collectives/NAME/templates/kernel.cpp.in` is written to
OUT/NAME/kernel.cpp with its placeholders filled as pypto's backend fills them for one
variant (`{{dtype_cpp}}` float, `{{reduce_inst}}` TADD, `{{root_cpp}}` 0,
`{{template_package}}` the template's folder); a placeholder not in that table is an error
here, so a new one is noticed rather than left in the C++. The kernels are not kept in this
repository.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

FILL = {"dtype_cpp": "float", "reduce_inst": "TADD", "root_cpp": "0"}
_PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def render(template: Path, package: str) -> str:
    values = {**FILL, "template_package": package}

    def one(m: re.Match) -> str:
        if m.group(1) not in values:
            raise SystemExit(f"{template}: no value for the placeholder {{{{{m.group(1)}}}}}")
        return values[m.group(1)]

    return _PLACEHOLDER.sub(one, template.read_text(encoding="utf-8"))


def main(tree: Path, out: Path) -> None:
    root = tree / "python" / "pypto" / "runtime" / "builtins" / "collectives"
    for template in sorted(root.glob("*/templates/kernel.cpp.in")):
        name = template.parent.parent.name
        target = out / name / "kernel.cpp"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(template, f"runtime/builtins/collectives/{name}"), encoding="utf-8")
        print(target)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.split("\n\n")[1])
    main(Path(sys.argv[1]), Path(sys.argv[2]))
