"""Parse .sig text into a syntax tree (model.syntax). Public entry point: `parse`."""

from __future__ import annotations

import os
import re
import sys
from functools import cache
from importlib import resources

import lark
from lark import Lark, Token, v_args
from lark.visitors import Transformer_NonRecursive
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from model import syntax as S
from model.errors import Span, SpecError, SpecErrors
from model.vocabulary import KEYWORDS

# Friendly messages for common mistakes. Each message is keyed to bad snippets; lark matches a
# failing parse against these by parser state. tests/model/test_parser.py pins every one.
FRIENDLY: dict[str, list[str]] = {
    "missing ';' at the end of the statement": [
        "kernel { int x = 1 }",
        "kernel { x = 1 x = 2; }",
        "kernel { TNOTIFY(f, 1, Set) }",
        "kernel { TWAIT(f, 1, EQ) }",
        "kernel { launch }",
        "kernel { x++ }",
        "kernel { return }",
        "kernel { break }",
    ],
    "missing ';' after the declaration": [
        "param N = 2 ranks N;",
        "signal f[2] kernel {}",
        "signal f = 0 kernel {}",
        "protocol p ranks 1;",
        "ranks 2 signal f;",
    ],
    "unbalanced braces: a '}' is missing before the end of the file": [
        "kernel { x = 1;",
        "kernel { if (x) { x = 1; }",
        "kernel {",
    ],
    "unbalanced braces: this '}' closes nothing": [
        "kernel { } }",
        "ranks 1; }",
    ],
    "expected a comparison (EQ, NE, GT, GE, LT, LE), not an operator: write TWAIT(sig, value, EQ)": [
        "kernel { TWAIT(f, 1, ==); }",
        "kernel { TWAIT(f, 1, >=); }",
        "kernel { TWAIT(f, 1, <); }",
        "kernel { TWAIT(f, 1, !=); }",
        "kernel { bool b = TTEST(f, 1, ==); }",
    ],
    "TNOTIFY, TWAIT and TTEST take (signal, value, op): write TWAIT(sig, 1, EQ), not TWAIT(sig == 1)": [
        "kernel { TWAIT(f == 1); }",
        "kernel { TWAIT(f >= 1); }",
        "kernel { bool b = TTEST(f == 1); }",
    ],
    "expected a notify op (Set or AtomicAdd) as the third argument": [
        "kernel { TNOTIFY(f, 1, =); }",
        "kernel { TNOTIFY(f, 1, +=); }",
        "kernel { TNOTIFY(f, 1); }",
    ],
    "a statement cannot start here: expected a declaration such as 'ranks', 'signal', 'kernel' or 'host'": [
        "x = 1;",
        "TNOTIFY(f, 1, Set);",
    ],
    (_EXPECT_FOR := "after 'expect VERDICT' comes ';', or a claim for every size: write 'expect ok for all N;'"): [
        "expect ok all N;",
        "expect ok every N;",
    ],
    (_EXPECT_PARAMS := "write the params as 'expect ok for all N, L;' (names separated by ',')"): [
        "expect ok for all N L;",
        "expect ok for N, L;",
        "expect ok for all, N;",
    ],
}

_KEYWORDS = KEYWORDS  # derived from the grammar (model/vocabulary.py)


@cache
def _parser() -> Lark:
    grammar = resources.files("model").joinpath("sig.lark").read_text()
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True,
                cache=_grammar_cache() or False)


def _grammar_cache() -> str | None:
    """Where lark keeps the analysed grammar between runs (building the LALR tables is most
    of a small check's start-up): a file in the user's own cache folder, never a shared
    temporary one (lark unpickles it). Lark checks the grammar's digest inside the file and
    rebuilds (and rewrites) it when the grammar or the options changed, and carries on
    without it when the file cannot be read or written; None when there is no such folder."""
    base = os.environ.get("XDG_CACHE_HOME") or (os.path.join(os.path.expanduser("~"), ".cache")
                                                 if os.path.expanduser("~") != "~" else "")
    if not base:
        return None
    folder = os.path.join(base, "sigproof")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return None
    if not os.access(folder, os.W_OK):
        return None
    py = "%d.%d" % sys.version_info[:2]
    return os.path.join(folder, f"sig-grammar-lark{lark.__version__}-py{py}.cache")


def parse(text: str, file: str) -> S.Spec:
    """Parse a whole spec. Raises SpecErrors (with file:line:col) on any syntax error."""
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise SpecErrors([SpecError("the file contains a NUL byte: is it a binary file?",
                                    Span(file, line, 1, line, 2))], text)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as e:
        raise SpecErrors([_syntax_error(e, text, file)], text) from None
    try:
        decls = _ToSyntax(file).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, SpecError):
            raise SpecErrors([e.orig_exc], text) from None
        raise
    return S.Spec(file, text, tuple(decls))


_MISSING_SEMI_STMT = "missing ';' at the end of the statement"
_MISSING_SEMI_DECL = "missing ';' after the declaration"
_CMP_TOKENS = {"==", "!=", "<", "<=", ">", ">=", "=", "!"}  # the lexer may split "=="
# A label only applies when the offending token fits it (LALR merges states, so a state
# match alone can pick a label for a different mistake).
_LABEL_TOKENS = {
    "unbalanced braces: this '}' closes nothing": {"}"},
    "unbalanced braces: a '}' is missing before the end of the file": {None},
    "expected a comparison (EQ, NE, GT, GE, LT, LE), not an operator: write TWAIT(sig, value, EQ)": _CMP_TOKENS,
    "TNOTIFY, TWAIT and TTEST take (signal, value, op): write TWAIT(sig, 1, EQ), not TWAIT(sig == 1)": _CMP_TOKENS,
}


def _syntax_error(e: UnexpectedInput, text: str, file: str) -> SpecError:
    line = getattr(e, "line", None)
    col = getattr(e, "column", None)
    at_end = isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END")
    if at_end:
        line, col = text.count("\n") + 1, len(text) - text.rfind("\n")
    if not isinstance(line, int) or line < 1:
        line, col = 1, 1
    span = Span(file, line, col, line, col + 1)
    if isinstance(e, UnexpectedCharacters):
        return SpecError(_generic_message(e), span)
    unsupported = _unsupported(e, text)
    if unsupported:
        return SpecError(unsupported, span)
    try:
        label = e.match_examples(_parser().parse, _examples(), use_accepts=True)
    except Exception:  # noqa: BLE001 - a failed match only means "no friendly message"
        label = None
    token = e.token.value if isinstance(e, UnexpectedToken) and not at_end else None
    if label in _LABEL_TOKENS and token not in _LABEL_TOKENS[label]:
        label = None
    if label in (_EXPECT_FOR, _EXPECT_PARAMS) and (token in _KEYWORDS or token in ("{", "}")):
        label = None  # `expect ok kernel {`: a missing ';', below
    if not label and isinstance(e, UnexpectedToken) and "SEMICOLON" in e.expected and (
            token in _KEYWORDS or token == "}"):
        label = _MISSING_SEMI_STMT
    if not label and at_end and _open_braces(text) > 0:
        label = "unbalanced braces: a '}' is missing before the end of the file"
    if label in (_MISSING_SEMI_STMT, _MISSING_SEMI_DECL):
        span = _after_previous_token(e, file) or _after_previous_text(text, span) or span
        inside = _open_braces(_text_before(text, span.line, span.col)) > 0
        label = _MISSING_SEMI_STMT if inside else _MISSING_SEMI_DECL
    if label:
        return SpecError(label, span)
    return SpecError(_generic_message(e), span)


_CALLS = "TNOTIFY, TWAIT, TTEST, LOAD, STORE, FETCH_ADD, CAS, TPUT, TGET, min, max and any"


def _unsupported(e: UnexpectedInput, text: str) -> str | None:
    """What a construct of real kernels that the language lacks should be written as."""
    if not isinstance(e, UnexpectedToken):
        return None
    history = [t for t in (getattr(e, "token_history", None) or []) if t is not None]
    tok, prev = e.token, (history[-1] if history else None)
    if tok.value == "(" and prev is not None and prev.type == "NAME":
        hint = (" (for an atomic add write TNOTIFY(sig @ r, v, AtomicAdd), or int old = FETCH_ADD(sig @ r, v) "
                "for the old value)") if prev.value.lower() in ("atomicadd", "atomic_add", "atomicadd_") else ""
        return f"'{prev.value}(...)': function calls are not supported; the calls the language has are {_CALLS}{hint}"
    before = _text_before(text, tok.line, tok.column) if tok.line else ""
    declared = re.search(r"\b(bool)\s+([A-Za-z_]\w*)\s*$", before)
    if tok.value == "[" and declared:
        return (f"'{declared[1]} {declared[2]}[...]': local arrays hold ints: declare "
                f"int {declared[2]}[N] = {{...}};")
    if tok.value == ";" and re.search(r"\bint\s+([A-Za-z_]\w*)\s*\[[^\]]*\]\s*$", before):
        return "a local array needs an initializer, as every local does: int a[N] = {0}; (missing items are 0)"
    if tok.value in ("int", "bool") and _open_braces(before) == 0:
        return ("top-level variables are not supported: declare 'param NAME = VALUE;' (overridable with -D) or "
                "'const NAME = EXPR;', or a local inside kernel { ... } or host { ... }")
    return None


def _text_before(text: str, line: int, col: int) -> str:
    lines = text.split("\n")
    return "\n".join(lines[: line - 1] + [lines[line - 1][: col - 1] if line <= len(lines) else ""])


@cache
def _examples() -> dict[str, list[str]]:
    """FRIENDLY, with each snippet also placed after an earlier declaration (another parser state)."""
    return {m: snippets + ["ranks 1;\n" + s for s in snippets] for m, snippets in FRIENDLY.items()}


def _open_braces(text: str) -> int:
    """How many '{' are still open at the end of the text (comments ignored)."""
    code = re.sub(r"//[^\n]*|/\*(.|\n)*?\*/", "", text)
    return code.count("{") - code.count("}")


def _after_previous_token(e: UnexpectedInput, file: str) -> Span | None:
    history = getattr(e, "token_history", None)
    if isinstance(e, UnexpectedToken) and history:
        tok = history[-1]
        if tok is not None and tok.end_line is not None:
            return Span(file, tok.end_line, tok.end_column, tok.end_line, tok.end_column + 1)
    return None


def _after_previous_text(text: str, span: Span) -> Span | None:
    """Just after the last non-blank character before `span` (when lark keeps no token history)."""
    before = _text_before(text, span.line, span.col).rstrip()
    if not before:
        return None
    line = before.count("\n") + 1
    col = len(before) - before.rfind("\n")
    return Span(span.file, line, col, line, col + 1)


def _generic_message(e: UnexpectedInput) -> str:
    if isinstance(e, UnexpectedCharacters):
        ch = e.char
        if ch and not ch.isprintable():
            return f"unexpected character {ch!r}"
        if ch and not ch.isascii():
            return f"unexpected character {ch!r}: names are ASCII letters, digits and '_'"
        return f"unexpected character {ch!r}"
    if isinstance(e, UnexpectedToken):
        if e.token.type == "$END":
            return "unexpected end of file"
        expected = sorted({_pretty_terminal(t) for t in e.expected if t not in ("_NS", "$END")})
        shown = ", ".join(expected[:8]) + (", ..." if len(expected) > 8 else "")
        what = e.token.value
        if what in _KEYWORDS:
            return f"unexpected keyword '{what}' (keywords cannot be used as names); expected {shown}"
        return f"unexpected '{what}'; expected {shown}"
    return "syntax error"


_TERMINAL_TEXT = {
    "SEMICOLON": "';'", "LPAR": "'('", "RPAR": "')'", "LBRACE": "'{'", "RBRACE": "'}'",
    "LSQB": "'['", "RSQB": "']'", "COMMA": "','", "COLON": "':'", "EQUAL": "'='", "NAME": "a name",
    "INT": "a number", "AT": "'@'", "QMARK": "'?'",
}


def _pretty_terminal(name: str) -> str:
    if name in _TERMINAL_TEXT:
        return _TERMINAL_TEXT[name]
    for keyword in _KEYWORDS:
        if keyword.upper() == name:
            return f"'{keyword}'"
    if name.endswith("_OP"):
        return "an operator"
    return f"'{name.lower()}'"


def _span(file: str, meta) -> Span:
    return Span(file, meta.line, meta.column, meta.end_line, meta.end_column)


def _tspan(file: str, tok: Token) -> Span:
    return Span(file, tok.line, tok.column, tok.end_line, tok.end_column)


def _int_value(tok: Token, file: str) -> int:
    text = tok.value
    if len(text) > 40:
        raise SpecError("integer literal too long (more than 40 digits)", _tspan(file, tok))
    return int(text, 16) if text[:2].lower() == "0x" else int(text, 10)


@v_args(meta=True)
class _ToSyntax(Transformer_NonRecursive):
    """Builds model.syntax nodes from lark's tree, without recursion (deep nesting is fine)."""

    def __init__(self, file: str):
        super().__init__()
        self.file = file

    def _s(self, meta) -> Span:
        return _span(self.file, meta)

    def _n(self, tok: Token) -> str:
        """A declared or used name; keywords are refused."""
        if tok.value in _KEYWORDS:
            raise SpecError(f"'{tok.value}' is a keyword and cannot be used as a name", _tspan(self.file, tok))
        return tok.value

    # ---- declarations
    def start(self, meta, children):
        return list(children)

    def protocol_decl(self, meta, c):
        return S.Decl(self._s(meta), "protocol", name=self._n(c[0]))

    def param_decl(self, meta, c):
        return S.Decl(self._s(meta), "param", name=self._n(c[0]), value=c[1])

    def const_decl(self, meta, c):
        return S.Decl(self._s(meta), "const", name=self._n(c[0]), value=c[1])

    def ranks_decl(self, meta, c):
        return S.Decl(self._s(meta), "ranks", value=c[0])

    def blocks_decl(self, meta, c):
        return S.Decl(self._s(meta), "blocks", value=c[0])

    def signal_decl(self, meta, c):
        name, *dims, init = c
        return S.Decl(self._s(meta), "signal", name=self._n(name), value=init, dims=tuple(dims))

    def buffer_decl(self, meta, c):
        name, *dims = c
        return S.Decl(self._s(meta), "buffer", name=self._n(name), dims=tuple(dims))

    def view_decl(self, meta, c):
        name, *dims, target = c
        return S.Decl(self._s(meta), "view", name=self._n(name), dims=tuple(dims), target=target)

    def dim(self, meta, c):
        return c[0]

    def kernel_decl(self, meta, c):
        return S.Decl(self._s(meta), "kernel", body=c[0])

    def host_decl(self, meta, c):
        return S.Decl(self._s(meta), "host", body=c[0])

    def check_decl(self, meta, c):
        return S.Decl(self._s(meta), "check", name=str(c[0]))

    def expect_decl(self, meta, c):
        return S.Decl(self._s(meta), "expect", name=str(c[0]), for_all=c[1] or ())

    def expect_for(self, meta, c):
        """`for all N, L`: `all` is a plain name here (specs may use it as one elsewhere)."""
        word, names = c[0], c[1] or []
        if word.value != "all":
            shown = ", ".join(t.value for t in names) if names else word.value
            raise SpecError(f"expected 'all' after 'for': write 'expect ok for all {shown};' (the params "
                            f"the spec is claimed correct for, every value of each)", _tspan(self.file, word))
        if not names:
            end = Span(self.file, word.end_line, word.end_column, word.end_line, word.end_column + 1)
            raise SpecError("name the params after 'for all': write 'expect ok for all N;' (or 'for all N, L;')",
                            end)
        return tuple(S.Name(_tspan(self.file, t), self._n(t)) for t in names)

    def expect_params(self, meta, c):
        return list(c)

    # ---- statements
    def block(self, meta, c):
        return S.Block(self._s(meta), tuple(c))

    def if_stmt(self, meta, c):
        return S.If(self._s(meta), c[0], c[1], c[2] if len(c) > 2 else None)

    def for_stmt(self, meta, c):
        return S.For(self._s(meta), c[0], c[1], c[2], c[3])

    def while_stmt(self, meta, c):
        return S.While(self._s(meta), c[0], c[1])

    def int_decl(self, meta, c):
        return S.VarDecl(self._s(meta), "int", self._n(c[0]), c[1])

    def bool_decl(self, meta, c):
        return S.VarDecl(self._s(meta), "bool", self._n(c[0]), c[1])

    def array_decl(self, meta, c):
        name, size, *items = c
        return S.ArrayDecl(self._s(meta), self._n(name), size, tuple(x for x in items if x is not None))

    def elem_assign(self, meta, c):
        name, index, op, value = c
        return S.ElemAssign(self._s(meta), self._n(name), index, str(op), value)

    def elem_step(self, meta, c):
        name, index, op = c
        return S.ElemAssign(self._s(meta), self._n(name), index, "+=" if str(op) == "++" else "-=",
                            S.IntLit(_tspan(self.file, op), 1))

    def assign(self, meta, c):
        return S.Assign(self._s(meta), self._n(c[0]), str(c[1]), c[2])

    def step(self, meta, c):
        op = "+=" if str(c[1]) == "++" else "-="
        return S.Assign(self._s(meta), self._n(c[0]), op, S.IntLit(_tspan(self.file, c[1]), 1))

    def empty_stmt(self, meta, c):
        return S.Block(self._s(meta), ())

    def break_stmt(self, meta, c):
        return S.Jump(self._s(meta), "break")

    def continue_stmt(self, meta, c):
        return S.Jump(self._s(meta), "continue")

    def return_stmt(self, meta, c):
        return S.Jump(self._s(meta), "return")

    def assert_stmt(self, meta, c):
        return S.Assert(self._s(meta), c[0])

    def notify_stmt(self, meta, c):
        return S.Notify(self._s(meta), c[0], c[1], c[2])

    def wait_stmt(self, meta, c):
        return S.Wait(self._s(meta), c[0], c[1], c[2])

    def expr_stmt(self, meta, c):
        return S.ExprStmt(self._s(meta), c[0])

    def pipe_barrier_stmt(self, meta, c):
        return S.PipeBarrier(self._s(meta), str(c[0]))

    def dsb_stmt(self, meta, c):
        return S.Dsb(self._s(meta), str(c[0]))

    def fence_stmt(self, meta, c):
        return S.Fence(self._s(meta))

    def put_stmt(self, meta, c):
        return S.Copy(self._s(meta), "put", c[0], c[1], c[2])

    def get_stmt(self, meta, c):
        return S.Copy(self._s(meta), "get", c[0], c[1])

    def put_async_stmt(self, meta, c):
        return S.Copy(self._s(meta), "put", c[1], c[2], event=self._n(c[0]))

    def get_async_stmt(self, meta, c):
        return S.Copy(self._s(meta), "get", c[1], c[2], event=self._n(c[0]))

    def read_stmt(self, meta, c):
        return S.Access(self._s(meta), c[0], False)

    def write_stmt(self, meta, c):
        return S.Access(self._s(meta), c[0], True)

    def wait_event_stmt(self, meta, c):
        return S.WaitEvent(self._s(meta), self._n(c[0]))

    def store_stmt(self, meta, c):
        return S.Store(self._s(meta), c[0], c[1])

    def observe_stmt(self, meta, c):
        return S.Observe(self._s(meta), c[0])

    def test_event(self, meta, c):
        return S.TestEvent(self._s(meta), self._n(c[0]))

    def load_expr(self, meta, c):
        return S.Load(self._s(meta), c[0])

    def fetch_add_expr(self, meta, c):
        return S.FetchAdd(self._s(meta), c[0], c[1])

    def cas_expr(self, meta, c):
        return S.Cas(self._s(meta), c[0], c[1], c[2])

    def launch_stmt(self, meta, c):
        return S.Launch(self._s(meta))

    def reset_stmt(self, meta, c):
        return S.Reset(self._s(meta), c[0])

    def host_barrier_stmt(self, meta, c):
        return S.HostBarrier(self._s(meta))

    def block_barrier_stmt(self, meta, c):
        return S.BlockBarrier(self._s(meta))

    # ---- views and ops
    def sigview(self, meta, c):
        name, *selectors, at = c
        return S.SigView(self._s(meta), self._n(name), tuple(selectors), at)

    def index(self, meta, c):
        return S.Index(self._s(meta), c[0])

    def slice(self, meta, c):
        start, stop, step = (list(c) + [None, None, None])[:3]
        return S.Slice(self._s(meta), start, stop, step)

    def qualname(self, meta, c):
        return S.OpName(self._s(meta), tuple(str(t) for t in c))

    def ttest(self, meta, c):
        return S.Test(self._s(meta), c[0], c[1], c[2])

    # ---- expressions
    def int_lit(self, meta, c):
        return S.IntLit(self._s(meta), _int_value(c[0], self.file))

    def true_lit(self, meta, c):
        return S.IntLit(self._s(meta), 1)

    def false_lit(self, meta, c):
        return S.IntLit(self._s(meta), 0)

    def name(self, meta, c):
        return S.Name(self._s(meta), self._n(c[0]))

    def elem(self, meta, c):
        return S.Elem(self._s(meta), self._n(c[0]), c[1])

    def binop(self, meta, c):
        return S.BinOp(self._s(meta), str(c[1]), c[0], c[2])

    def unop(self, meta, c):
        return S.UnOp(self._s(meta), str(c[0]), c[1])

    def cond_expr(self, meta, c):
        return S.Cond(self._s(meta), c[0], c[1], c[2])

    def min_call(self, meta, c):
        return S.MinMax(self._s(meta), "min", c[0], c[1])

    def max_call(self, meta, c):
        return S.MinMax(self._s(meta), "max", c[0], c[1])

    def any_call(self, meta, c):
        return S.Any(self._s(meta), c[0], c[1])
