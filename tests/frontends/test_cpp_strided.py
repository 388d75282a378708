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
