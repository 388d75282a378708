"""`[regions]` (issue 20, item 2): signals and buffers carved out of a byte workspace at offsets
the host computes (`(__gm__ int32_t *)(workspace + flagOff)`), named in the config as
`NAME = {base = "C++ address", elems = N}`. Without it both regions are one signal
`workspace` at two offset params that both start at 0 (the regions overlap)."""

from pathlib import Path

import pytest

from checker.kernels import check_inputs
from frontends.cpp import ExtractError, extract

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "tests/frontends/regions/ws_two_regions.cpp"
BASE = {"rank": "ctx->rankId", "nranks": "ctx->rankSize", "ranks": 3, "pragmas": False}
REGIONS = {"flags": {"base": "workspace + flagOff", "elems": 8}, "done": {"base": "workspace + doneOff", "elems": 1}}


def test_without_regions_the_workspace_is_one_signal_at_offset_params():
    text = extract([str(KERNEL)], BASE).sig_text
    assert "param FLAGOFF = 0;" in text and "param DONEOFF = 0;" in text
    assert "signal workspace[" in text and "signal flags" not in text


def test_regions_name_the_signals_with_their_sizes_and_say_so():
    ex = extract([str(KERNEL)], {**BASE, "regions": REGIONS})
    text = ex.sig_text
    assert "signal flags[8];" in text and "signal done[1];" in text and "workspace" not in text.split("kernel {")[1]
    assert "TNOTIFY(flags[rank] @ p, 1, Set);" in text and "TNOTIFY(done[0] @ 0, 1, AtomicAdd);" in text
    assert "FLAGOFF" not in text and "DONEOFF" not in text
    notes = [a for a in ex.assumptions if "(config [regions])" in a.text]
    assert sorted((a.line, a.text.split(" is the start of ")[1].split(" ")[0]) for a in notes) == [(14, "flags"), (15, "done")]
    (r,) = check_inputs([str(KERNEL)], config={**BASE, "regions": REGIONS})
    assert r.error is None and r.violated == [] and r.status == "pass"


def test_a_region_too_small_for_its_indices_is_an_error_verdict():
    (r,) = check_inputs([str(KERNEL)], config={**BASE, "regions": {**REGIONS, "flags": {"base": "workspace + flagOff",
                                                                                        "elems": 2}}})
    assert r.violated == ["error"]


@pytest.mark.parametrize("bad", [{"base": 3}, {"elems": 4}, {"base": "w + o", "size": 4}, {"base": "w + o", "elems": 0},
                                 "workspace + flagOff"])
def test_a_malformed_region_is_a_config_error(bad):
    with pytest.raises(ExtractError, match="config regions.flags: write flags = {base"):
        extract([str(KERNEL)], {**BASE, "regions": {"flags": bad}})


# Regions at offsets the code fixes (frontends/cpp/workspace.py; simpler's EP dispatch/combine
# scratch): split without config, each sized to its byte range up to the next region.
CONST = KERNEL.read_text().replace(", uint64_t flagOff,\n                                      uint64_t doneOff)", ")").replace(
    "// Two regions", "constexpr uint64_t flagOff = 0;\nconstexpr uint64_t doneOff = FLAGBYTES;\n// Two regions")


def constant_kernel(tmp_path, flag_bytes: int = 32, extra: str = "") -> str:
    assert "constexpr uint64_t doneOff" in CONST and "uint64_t flagOff," not in CONST
    text = CONST.replace("FLAGBYTES", str(flag_bytes)).replace("    int32_t n = ctx->rankSize;\n",
                                                               "    int32_t n = ctx->rankSize;\n" + extra)
    (tmp_path / "ws.cpp").write_text(text)
    return str(tmp_path / "ws.cpp")


def test_regions_at_fixed_offsets_are_split_without_config(tmp_path):
    ex = extract([constant_kernel(tmp_path)], BASE)
    assert "signal flags[8];" in ex.sig_text and "signal done" in ex.sig_text and "signal workspace" not in ex.sig_text
    notes = sorted(a.text for a in ex.assumptions if "a region of workspace workspace" in a.text)
    assert len(notes) == 2 and "bytes [0, 32), up to the next region: 8 elements, an index past them is an error" in notes[1]
    (r,) = check_inputs([constant_kernel(tmp_path)], config=BASE)
    assert r.error is None and r.violated == [] and r.status == "pass"


def test_a_fixed_region_too_small_for_its_indices_is_an_error_verdict(tmp_path):
    """Three ranks index flags[0..2]; 8 bytes hold two: the third is the overflow into `done`."""
    (r,) = check_inputs([constant_kernel(tmp_path, flag_bytes=8)], config=BASE)
    assert r.violated == ["error"]


@pytest.mark.parametrize("extra", ["    __gm__ int32_t *extra = (__gm__ int32_t *)(workspace + 4 * me);\n",
                                   "    __gm__ uint8_t *alias = workspace;\n"], ids=["computed offset", "alias"])
def test_a_workspace_used_otherwise_stays_whole(tmp_path, extra):
    text = extract([constant_kernel(tmp_path, extra=extra)], BASE).sig_text
    assert "signal workspace[" in text and "signal flags" not in text


def test_the_config_regions_replace_the_fixed_split(tmp_path):
    ex = extract([constant_kernel(tmp_path)], {**BASE, "regions": REGIONS})
    assert len([a for a in ex.assumptions if "(config [regions])" in a.text]) == 2
    assert not [a for a in ex.assumptions if "a region of workspace" in a.text]
