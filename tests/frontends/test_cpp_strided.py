"""Strided data views of TPUT / TGET (issue 20, item 5): a GlobalTensor whose rows are
further apart than a row (`Shape<1, 1, 1, 2, 32>` with `Stride<.., 64, 1>`) becomes a
declared `view` of the buffer (docs/language.md 6.1), so a put into the rows and a read of
the padding between them are told apart."""

from pathlib import Path

import pytest

from checker.kernels import check_inputs
from frontends.cpp import extract

ROOT = Path(__file__).resolve().parents[2]
RING = (ROOT / "tests/frontends/corpus/put_notify_fence/put_notify_fence.cpp").read_text()
CONTIGUOUS = ("using RowShape = pto::Shape<1, 1, 1, 1, kRowElems>;",
              "using RowStride = pto::Stride<kRowElems, kRowElems, kRowElems, kRowElems, 1>;")
STRIDED = ("using RowShape = pto::Shape<1, 1, 1, 2, 32>;", "using RowStride = pto::Stride<128, 128, 128, 64, 1>;")
FENCE = "    pipe_barrier(PIPE_ALL);\n    dsb(DSB_DDR);\n"


def kernel(tmp_path, shape=STRIDED, fenced=True, read=None) -> str:
    text = RING.replace(CONTIGUOUS[0], shape[0]).replace(CONTIGUOUS[1], shape[1])
    assert text != RING or shape == CONTIGUOUS
    if not fenced:
        assert FENCE in text
        text = text.replace(FENCE, "")
    if read is not None:
        text = text.replace("    RowGlobal got(recv);\n    TLOAD(staging, got);",
                            f"    RowGlobal got(recv + {read});\n    TLOAD(staging, got);")
    path = tmp_path / "strided.cpp"
    path.write_text(text)
    return str(path)


def test_a_strided_put_becomes_a_view_of_the_buffer(tmp_path):
    text = extract([kernel(tmp_path)]).sig_text
    assert "view recv_view[2][32] = recv[0::64];" in text and "view send_view[2][32] = send[0::64];" in text
    assert "TPUT(recv_view @ next, send_view);" in text and "READ(recv_view);" in text
    assert "view" not in extract([kernel(tmp_path, CONTIGUOUS)]).sig_text.split("kernel {")[0].replace("// ", "")


@pytest.mark.parametrize("fenced, verdict", [(True, []), (False, ["data_race"])])
def test_a_strided_put_is_judged_per_element(tmp_path, fenced, verdict):
    (r,) = check_inputs([kernel(tmp_path, fenced=fenced)])
    assert r.error is None and r.violated == verdict, r.error


def at_runtime_offset(tmp_path, fenced=True) -> str:
    """The strided ring at an offset the kernel receives (`off`): no `view` can name it."""
    path = kernel(tmp_path, fenced=fenced)
    text = Path(path).read_text()
    for old, new in (("__gm__ int32_t *ready)", "__gm__ int32_t *ready, int32_t off)"),
                     ("RowGlobal dst(PeerAddr(ctx, recv, next));", "RowGlobal dst(PeerAddr(ctx, recv, next) + off);"),
                     ("RowGlobal got(recv);", "RowGlobal got(recv + off);")):
        assert old in text
        text = text.replace(old, new)
    Path(path).write_text(text)
    return path


def test_a_strided_window_at_a_runtime_offset_is_cut_into_rows(tmp_path):
    ex = extract([at_runtime_offset(tmp_path)])
    text = ex.sig_text
    assert "view" not in text.split("kernel {")[0].replace("// ", "")
    assert "TPUT(recv[OFF:OFF + 32] @ next, send[0:32]);\n    TPUT(recv[OFF + 64:OFF + 64 + 32] @ next, send[64:96]);" in text, text
    assert "READ(recv[OFF:OFF + 32]);\n    READ(recv[OFF + 64:OFF + 64 + 32]);" in text
    assert any("modelled as 2 transfers of one row each" in a.text for a in ex.assumptions)


@pytest.mark.parametrize("fenced, verdict", [(True, []), (False, ["data_race"])])
def test_the_rows_of_a_window_are_judged_as_the_window(tmp_path, fenced, verdict):
    (r,) = check_inputs([at_runtime_offset(tmp_path, fenced=fenced)])
    assert r.error is None and r.violated == verdict, r.error
