"""Data tensors are named as data (issue 20, item 6): a pointer path whose type the code
does not show (`in_t->buffer.addr` of pypto's tensor table) is said to be a data buffer when
it ends up as TPUT / TGET / TLOAD / TSTORE data, and a signal buffer only when it is a
signal; the error for a data tensor the extraction cannot place names it as data."""

from __future__ import annotations

import pytest

from frontends.cpp import ExtractError, extract

HEAD = "#include <pto/comm/pto_comm_inst.hpp>\n"

KERNEL = """
template <typename T>
AICORE inline __gm__ T *CommRemotePtr(__gm__ CommContext *ctx, __gm__ T *local_ptr, int pe) {
  uint64_t offset = reinterpret_cast<uint64_t>(local_ptr) - ctx->windowsIn[ctx->rankId];
  return reinterpret_cast<__gm__ T *>(ctx->windowsIn[pe] + offset);
}
using RowShape = pto::Shape<1, 1, 1, 1, 64>;
using RowStride = pto::Stride<64, 64, 64, 64, 1>;
using RowGlobal = pto::GlobalTensor<float, RowShape, RowStride>;
using RowTile = pto::Tile<pto::TileType::Vec, float, 1, 64>;
extern "C" __global__ AICORE void kernel_entry(__gm__ int64_t *args) {
  __gm__ ChipTensor *in_t = reinterpret_cast<__gm__ ChipTensor *>(args[0]);
  __gm__ ChipTensor *out_t = reinterpret_cast<__gm__ ChipTensor *>(args[1]);
  __gm__ CommContext *ctx = reinterpret_cast<__gm__ CommContext *>(args[2]);
  __gm__ ChipTensor *sig_t = reinterpret_cast<__gm__ ChipTensor *>(args[3]);
  __gm__ int32_t *sig = reinterpret_cast<__gm__ int32_t *>(sig_t->buffer.addr);
  __gm__ float *src = reinterpret_cast<__gm__ float *>(in_t->buffer.addr);
  __gm__ float *dst = reinterpret_cast<__gm__ float *>(out_t->buffer.addr);
  int me = static_cast<int>(ctx->rankId);
  int next = (me + 1) % static_cast<int>(ctx->rankNum);
  RowTile staging;
  RowGlobal s(src);
  RowGlobal d(CommRemotePtr(ctx, dst + 0, next));
  pto::comm::TPUT(d, s, staging);
  pipe_barrier(PIPE_ALL);
  dsb(DSB_DDR);
  pto::comm::TNOTIFY(pto::comm::Signal(CommRemotePtr(ctx, sig + 0, next)), 1, pto::comm::NotifyOp::Set);
  pto::comm::TWAIT(pto::comm::Signal(sig), 1, pto::comm::WaitCmp::EQ);
  RowGlobal got(dst);
  TLOAD(staging, got);
}
"""


def run(tmp_path, body: str):
    p = tmp_path / "k.cpp"
    p.write_text(HEAD + body)
    return extract([str(p)], {"pragmas": False})


def said(ex, text: str) -> list[str]:
    return [a.text for a in ex.assumptions if text in a.text]


def test_data_tensors_are_named_as_data_and_the_signal_as_a_signal(tmp_path):
    ex = run(tmp_path, KERNEL)
    assert "TPUT(out_t_buffer_addr[0:64] @ next, addr[0:64]);" in ex.sig_text
    data = said(ex, "is used as a data buffer")
    assert sorted(t.split(" is ")[0] for t in data) == ["in_t->buffer->addr", "out_t->buffer->addr"]
    assert all("not a signal" in t for t in data)
    signal = said(ex, "is used as a signal buffer")
    assert [t.split(" is ")[0] for t in signal] == ["sig_t->buffer->addr"]     # the look-alike: a real signal


def test_an_untyped_pointer_that_ends_up_unused_is_not_called_anything(tmp_path):
    # TLOAD of a tensor no TPUT / TGET touches: the buffer is left out, and so is what it was
    body = KERNEL.replace("  pto::comm::TPUT(d, s, staging);\n", "")
    ex = run(tmp_path, body)
    assert not said(ex, "in_t->buffer->addr") and not said(ex, "out_t->buffer->addr")
    assert said(ex, "sig_t->buffer->addr is used as a signal buffer")


def test_a_data_tensor_the_extraction_cannot_place_is_called_a_data_buffer(tmp_path):
    with pytest.raises(ExtractError) as e:
        run(tmp_path, KERNEL.replace("dst + 0, next", "dst, next"))
    assert "cannot tell which data buffer `CommRemotePtr(ctx, dst, next)` points into" in str(e.value)
    with pytest.raises(ExtractError) as e:       # the look-alike: an int32 tensor is a signal
        run(tmp_path, KERNEL.replace("dst + 0, next", "dst, next").replace("GlobalTensor<float", "GlobalTensor<int32_t"))
    assert "cannot tell which signal `CommRemotePtr(ctx, dst, next)` points into" in str(e.value)
