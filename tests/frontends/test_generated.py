"""Kernels in the style pypto generates for the simpler runtime (tests/frontends/generated/):
one int64 argument array, the rank as a union-converted scalar, the communication context as
a raw int64 table whose window-base difference moves a signal pointer to a peer, the SPMD
block from the dispatch payload. The reader must see the peer, the rank and the block, or a
push/wait pair checked together judges a protocol that is not the kernel's."""

import json
from pathlib import Path

import pytest

from frontends.cpp import extract
from helpers import sigproof

ROOT = Path(__file__).resolve().parents[2]
HERE = "tests/frontends/generated"


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


PAIR = f"{HERE}/spmd_pair.cpp"


def skeleton(text: str | None = None, tmp_path=None):
    path = Path(PAIR)
    if text is not None:
        path = tmp_path / "spmd_pair.cpp"
        path.write_text(text)
    ex = extract([str(path)], {"kernel": "push_entry"})
    return ex.sig_text, "\n".join(str(a) for a in ex.assumptions)


def test_the_window_difference_moves_the_signal_to_the_peer():
    sig, assumed = skeleton()
    # (v1 + (ctx[4 + peer] - ctx[4 + ctx[2]]) / 4) + me: the peer's copy, at the own rank's slot
    assert "TNOTIFY(addr[START_OFFSET + (rank < 0 ? 0 : rank)] @ i11, 1, AtomicAdd);" in sig
    assert "took my_rank__ssa_v0 as the own rank" in assumed
    assert "get_block_idx(args) taken as the block index" in assumed
    assert "V13" not in sig and "V14" not in sig  # the table words are no longer runtime params


def test_a_difference_over_another_element_size_is_left_as_runtime_data(tmp_path):
    # dividing the byte distance by 2 does not make an int32 pointer's element count: no peer
    text = (ROOT / PAIR).read_text().replace("(uint64_t)v13) / v7)", "(uint64_t)v13) / v8)")
    sig, _ = skeleton(text, tmp_path)
    assert "@ i11" not in sig and "V14 - V13" in sig


def check_json(*argv):
    code, out, err = sigproof("check", *argv, "--format", "json", "--no-timing", "-j", "1")
    return code, json.loads(out), err


@pytest.mark.parametrize("blocks, verdict", [(4, []), (3, ["deadlock"])])
def test_the_pair_is_ok_with_as_many_push_blocks_as_the_wait_counts(tmp_path, blocks, verdict):
    config = tmp_path / "sigproof.toml"
    config.write_text(f"blocks = {blocks}\n")
    code, doc, _ = check_json(PAIR, "--together", "--config", config)
    result = doc["results"][0]
    assert result["violated"] == verdict, result
    assert code == (0 if not verdict else 1)
    assert result["params"]["NBLOCKS"] == blocks


BF16_PUT = """#include <pto/comm/pto_comm_inst.hpp>
__global__ AICORE void k(__gm__ bfloat16_t *out, __gm__ bfloat16_t *in)
{
    Tile<TileType::Vec, bfloat16_t, 1, 16, BLayout::RowMajor, -1, -1> tile =
        Tile<TileType::Vec, bfloat16_t, 1, 16, BLayout::RowMajor, -1, -1>(1, 16);
    pto::Shape<1, 1, 1, 1, 16> s = pto::Shape<1, 1, 1, 1, 16>();
    pto::Stride<16, 16, 16, 16, 1> t = pto::Stride<16, 16, 16, 16, 1>();
    GlobalTensor<bfloat16_t, pto::Shape<1, 1, 1, 1, 16>, pto::Stride<16, 16, 16, 16, 1>, pto::Layout::ND> v =
        GlobalTensor<bfloat16_t, pto::Shape<1, 1, 1, 1, 16>, pto::Stride<16, 16, 16, 16, 1>, pto::Layout::ND>(out, s, t);
    GlobalTensor<
        bfloat16_t, pto::Shape<1, 1, 1, 1, 16>, pto::Stride<16, 16, 16, 16, 1>, pto::Layout::ND>
        w = GlobalTensor<
            bfloat16_t, pto::Shape<1, 1, 1, 1, 16>, pto::Stride<16, 16, 16, 16, 1>, pto::Layout::ND>(in, s, t);
    pto::comm::TPUT(v, w, tile);
}
"""


def test_an_element_type_the_parser_reads_as_an_expression_is_still_a_type(tmp_path):
    # in `GlobalTensor<bfloat16_t, ...>(ptr, ...)` the parser takes bfloat16_t for an expression
    # (the call form): it was evaluated, became a param, and the tensor was refused
    path = tmp_path / "k.cpp"
    path.write_text(BF16_PUT)
    sig = extract([str(path)], {}).sig_text
    assert "buffer out[16];" in sig and "TPUT(out[0:16], in[0:16]);" in sig
