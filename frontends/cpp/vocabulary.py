"""The PTO names the extraction knows, and small records it keeps."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from frontends.core.errors import Loc
from frontends.core.intrinsics import INTRINSICS
from frontends.core.sym import Sym


BUILTIN_CALLS = {  # the block's index and count from the intrinsic table, the rank's from the libraries
    "rank": ("GetRank()", "get_rank()", "GetRankId()"),
    "nranks": ("GetRankSize()", "get_rank_size()", "GetRankNum()"),
    "block": tuple(f"{name}()" for row in INTRINSICS if row.role == "block_index" for name in row.cpp),
    "nblocks": tuple(f"{name}()" for row in INTRINSICS if row.role == "block_count" for name in row.cpp),
}
CONVENTIONAL = {
    "rank": ("rank", "myRank", "my_rank", "rankId", "rank_id", "localRank", "me"),
    "nranks": ("nranks", "nRanks", "rankSize", "rank_size", "worldSize", "world_size",
               "numRanks", "num_ranks", "rankNum"),
    "nblocks": ("nblocks", "blockNum", "block_num", "numBlocks", "num_blocks"),
}
# The PTO library's communication contexts (pto-isa include/pto/common/cpu_stub.hpp and the
# kernels' hccl_context.h: HcclDeviceContext; kernels/include/communication: CommDeviceContext;
# the simpler runtime's platform_comm/comm_context.h: CommContext, whose rankId / rankNum /
# windowsIn offsets pypto pins in include/pypto/codegen/distributed/comm_layout.h):
# the host fills rankId with the rank the kernel runs on and rankNum with the rank count.
LIBRARY_CONTEXTS = {
    "HcclDeviceContext": {"rankId": "rank", "rankNum": "nranks"},
    "CommDeviceContext": {"rankId": "rank", "rankNum": "nranks"},
    "CommContext": {"rankId": "rank", "rankNum": "nranks"},
}
WRAPPERS = ("Signal", "Signal2D", "GlobalTensor")
# intrinsics that move data or order pipes inside a rank: no signal meaning
IGNORED_CALLS = {
    "TLOAD", "TSTORE", "TMOV", "TADD", "TMUL", "TASSIGN", "TCOPY", "TEXP",
    "TSUB", "TDIV", "TMAX", "TMIN", "TCVT", "TGATHER", "TSCATTER", "TREDUCE", "TBROADCAST",
    "DataCopy", "dcci", "set_flag", "wait_flag", "SetFlag", "WaitFlag", "printf", "assert",
    "PipeBarrier", "static_assert", "memcpy", "memset",
}
MAX_INLINE_DEPTH = 32


def norm(text: str) -> str:
    return re.sub(r"\s+", "", text).removeprefix("::")


def origin_key(key: str) -> str:
    """The key of a C++ expression a value came from: `arg:rank`, `field:ctx.rankId`."""
    return norm(key).replace("->", ".")


@dataclass
class SignalInfo:
    name: str
    key: str
    loc: Loc | None
    level: int
    dims: tuple[Sym, ...] | None = None        # kernel-context, from the config
    spans: list = field(default_factory=list)  # (first element, last element) used


@dataclass
class Site:
    kind: str
    loc: Loc
    levels: dict
