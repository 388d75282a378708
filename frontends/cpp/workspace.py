"""Signals and buffers carved out of a byte workspace at constant offsets (issue 20, item 2).
Entry point: `Workspace.split_workspaces(body)` (a part of Interp).

simpler's EP dispatch/combine kernels lay their signals and receive buffers out in one
`uint8_t` scratch:

    __gm__ int32_t *pub_counts_local = reinterpret_cast<__gm__ int32_t *>(scratch_base + kOffPubCounts);
    __gm__ int32_t *count_done_sig_local = reinterpret_cast<__gm__ int32_t *>(scratch_base + kOffCountDone);
    __gm__ bfloat16_t *recv_x_local = reinterpret_cast<__gm__ bfloat16_t *>(scratch_base + kOffRecvX);

Read as one signal at byte offsets, the scratch spans millions of elements. When the kernel
body declares two or more such pointers from one byte base at offsets the code fixes
(constants), and uses that base for nothing else, each becomes a region of its own, named
after its variable: region k holds the bytes [offset_k, offset_k+1), so it is sized to that
many of its elements (an index past it is an "index out of bounds" error, the overflow into
the next region the hardware would make), the last one to cover the indices used. Regions
of distinct byte ranges are distinct memory, as in the hardware; any other use of the base
(an offset the code computes, the base passed on) keeps the workspace whole, as before.
The config's `[regions]` replaces all of it.
"""

from __future__ import annotations

from frontends.core import sym as S
from frontends.cpp.source import declarator_name
from frontends.cpp.values import SIZE_OF, clean_type, pointee
from frontends.cpp.vocabulary import norm

MAX_ELEMS = 1 << 16  # a region sized from its byte range only up to this many elements
_CASTS = ("cast_expression", "call_expression")


class Workspace:
    """Regions of byte workspaces (a part of Interp)."""

    def split_workspaces(self, body) -> None:
        """Register the regions of each byte workspace of the kernel body (see the module)."""
        if self.regions:  # the config names the regions itself
            return
        found: dict[str, list] = {}  # base -> [(offset, name, element bytes, address node)]
        for stmt in body.named_children:
            if stmt.type != "declaration":
                continue
            for d in stmt.children_by_field_name("declarator"):
                region = self._region_decl(stmt, d)
                if region is not None:
                    found.setdefault(region[0], []).append(region[1:])
        for base, regions in found.items():
            offsets = [r[0] for r in regions]
            if len(regions) < 2 or len(set(offsets)) != len(offsets) or min(offsets) < 0:
                continue
            keys = {norm(self.text(r[3])) for r in regions}
            if not self._only_regions(body, base, keys):
                continue
            regions.sort(key=lambda r: r[0])
            sizes = dict(self.cfg.get("signals", {})), dict(self.cfg.get("buffers", {}))
            for k, (off, name, esize, node) in enumerate(regions):
                nxt = regions[k + 1][0] if k + 1 < len(regions) else None
                elems = (nxt - off) // esize if nxt is not None and (nxt - off) % esize == 0 else None
                if elems is not None and not 0 < elems <= MAX_ELEMS:
                    elems = None
                self.regions[norm(self.text(node))] = name
                if elems is not None:
                    sizes[0].setdefault(name, elems)
                    sizes[1].setdefault(name, elems)
                if nxt is None:
                    span = f"the bytes from {off} on, the last region: sized to cover the indices used"
                elif elems is None:
                    span = f"bytes [{off}, {nxt}), up to the next region: sized to cover the indices used"
                else:
                    span = f"bytes [{off}, {nxt}), up to the next region: {elems} elements, an index past them is an error"
                self.region_notes[name] = (f"{self.text(node)} is the start of {name}, a region of workspace {base} "
                                           f"at a fixed offset ({span}; set [regions] in sigproof.toml otherwise)")
            self.cfg = {**self.cfg, "signals": sizes[0], "buffers": sizes[1]}

    def _region_decl(self, stmt, d):
        """(base, offset, name, element bytes, address node) of `T *name = (T *)(base + OFF);`
        with OFF a constant of the code, else None."""
        if d.type != "init_declarator":
            return None
        inner = d.child_by_field_name("declarator")
        value = d.child_by_field_name("value")
        if inner is None or inner.type != "pointer_declarator" or value is None:
            return None
        pt = pointee(clean_type(self.text(stmt.child_by_field_name("type")) + "*"))
        if pt is None or pt[0] not in SIZE_OF:
            return None
        addr = _cast_operand(value)
        if addr is None or addr.type != "binary_expression" or self.text(addr.child_by_field_name("operator")) != "+":
            return None
        left, right = addr.child_by_field_name("left"), addr.child_by_field_name("right")
        if left.type != "identifier":
            return None
        off = self.eval(right)
        if not isinstance(off, S.Sym) or not S.is_int(off) or off.reads:
            return None
        return self.text(left), off.args[0], declarator_name(d), SIZE_OF[pt[0]], addr

    def _only_regions(self, body, base: str, keys: set) -> bool:
        """Whether every use of `base` in the body is one of the region addresses (its own
        declaration aside)."""
        stack = [body]
        while stack:
            n = stack.pop()
            if n.type == "binary_expression" and norm(self.text(n)) in keys:
                continue
            if n.type == "identifier" and self.text(n) == base:
                parent = n.parent
                if parent is None or parent.type != "init_declarator" or parent.child_by_field_name("declarator") != n:
                    if not (parent is not None and parent.type == "pointer_declarator"):
                        return False
            stack.extend(n.children)
        return True


def _cast_operand(node):
    """The operand of `reinterpret_cast<T *>(x)` / `(T *)(x)` (parentheses looked through)."""
    while node is not None and node.type == "parenthesized_expression":
        node = node.named_children[0] if node.named_children else None
    if node is None:
        return None
    if node.type == "cast_expression":
        node = node.child_by_field_name("value")
    elif node.type == "call_expression" and "reinterpret_cast" in node.child_by_field_name("function").text.decode():
        args = node.child_by_field_name("arguments")
        node = args.named_children[0] if args is not None and args.named_children else None
    else:
        return None
    while node is not None and node.type == "parenthesized_expression":
        node = node.named_children[0] if node.named_children else None
    return node
