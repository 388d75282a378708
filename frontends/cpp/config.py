"""The extraction's configuration: `sigproof.toml` beside the kernel and `// sigproof:` pragmas.

A pragma is one TOML line after `// sigproof:` (`// sigproof: ranks = 4`,
`// sigproof: signals.flags = "nranks"`). Values from the TOML file (or from the dict
given to `extract`) win over pragmas. Unknown keys are errors, so a typo is never
silently ignored.
"""

from __future__ import annotations

from frontends.core.config import Schema

# key -> (type(s) accepted, meaning); docs/frontends.md describes each with an example
KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "kernel": ((str,), "name of the kernel function"),
    "together": ((bool,), "check the file's kernels with signal operations as one protocol"),
    "protocol": ((str,), "protocol name of the skeleton"),
    "ranks": ((int,), "number of ranks (value of param NRANKS)"),
    "blocks": ((int,), "blocks per rank (value of param NBLOCKS)"),
    "subblocks": ((int,), "vector cores per cube core of a mixed kernel (default 2, as dav-c220 runs one)"),
    "rank": ((str, list), "C++ expressions that mean the own rank"),
    "nranks": ((str, list), "C++ expressions that mean the rank count"),
    "block": ((str, list), "C++ expressions that mean the block index"),
    "nblocks": ((str, list), "C++ expressions that mean the block count"),
    "windows": ((str, list), "names of per-rank window base arrays (windowsIn[pe])"),
    "host": ((list,), "host sequence: launch, reset SIG, host_barrier"),
    "signals": ((dict,), "signal sizes: NAME = size or [dims] (ints or C++ expressions)"),
    "buffers": ((dict,), "buffer sizes (TPUT/TGET data): NAME = size or [dims]"),
    "regions": ((dict,), "signals or buffers carved out of a workspace: NAME = {base = \"C++ address\", elems = N}"),
    "plain_signals": ((str, list), "pointers whose plain loads and stores are signals"),
    "values": ((dict,), "values of kernel arguments and template parameters"),
    "runtime": ((dict,), "C++ expression text -> C++ expression for runtime data"),
    "bounds": ((dict,), "C++ expression text -> [lo, hi] for runtime data"),
    "ops": ((dict,), "C++ expression text -> Set/AtomicAdd/EQ/.. for runtime op/cmp"),
    "check": ((str, list), "extra .sig checks, e.g. clean_exit"),
    "pragmas": ((bool,), "read // sigproof: pragmas (default true; API only)"),
    "defines": ((str, list), "preprocessor macros, as -D on a compile line: NAME or NAME=VALUE"),
}

LIST_KEYS = ("rank", "nranks", "block", "nblocks", "windows", "plain_signals", "check", "defines")


SCHEMA = Schema(KEYS, LIST_KEYS)
from_file, from_pragmas, resolve = SCHEMA.from_file, SCHEMA.from_pragmas, SCHEMA.resolve
