"""A language server for .sig specs (`sigproof lsp`, JSON-RPC over stdio, built on pygls).

On open and change it publishes the parse and semantic errors as diagnostics; on save it
also checks the spec (with its default params, within `max_states` and `timeout`) and
publishes the verdict: each violation at the statement that blocks, erases or fails, with
its counterexample steps as related locations. Entry points: `diagnostics`, `serve`.
Known limitation: the check runs in the server's thread, so a save waits for it (bounded).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as T

from checker.check import Options, check_program
from checker.result import LABEL, Result
from model import SpecErrors, compile_spec, parse
from model.errors import Span

SOURCE = "sigproof"


def _path(uri: str) -> str:
    u = urlparse(uri)
    return unquote(u.path) if u.scheme == "file" else uri


def _range(span: Span | None) -> T.Range:
    if span is None:
        return T.Range(T.Position(0, 0), T.Position(0, 0))
    start = T.Position(max(span.line - 1, 0), max(span.col - 1, 0))
    end = T.Position(max(span.end_line - 1, 0), max(span.end_col - 1, 0))
    if (end.line, end.character) < (start.line, start.character):
        end = start
    return T.Range(start, end)


def _errors(e: SpecErrors) -> list[T.Diagnostic]:
    return [T.Diagnostic(range=_range(err.span), message=err.message, severity=T.DiagnosticSeverity.Error,
                         source=SOURCE) for err in e.errors]


def diagnostics(source: str, uri: str, *, check: bool = False, options: Options = Options()) -> list[T.Diagnostic]:
    """The diagnostics of a spec's text: its errors; with `check`, the verdict of checking it."""
    name = _path(uri)
    try:
        program = compile_spec(parse(source, name))
    except SpecErrors as e:
        return _errors(e)
    if not check:
        return []
    return verdict(check_program(program, name, options), uri)


def verdict(r: Result, uri: str) -> list[T.Diagnostic]:
    out = []
    for v in r.violations:
        expected = v.property in r.expected
        span = v.span or (v.trace[-1].span if v.trace else None)
        related = [T.DiagnosticRelatedInformation(
            location=T.Location(uri=uri if s.span.file == r.spec else Path(s.span.file).resolve().as_uri(),
                                range=_range(s.span)),
            message=f"{s.step}. {s.process}: {s.statement}" + (f"  {s.locals_text}" if s.locals else "")
            + "".join(f"; {e.text}" for e in s.effects))
            for s in v.trace]
        severity = T.DiagnosticSeverity.Information if expected else T.DiagnosticSeverity.Error
        note = " (expected)" if expected else ""
        out.append(T.Diagnostic(range=_range(span), message=f"{v.property}{note}: {v.message}", severity=severity,
                                source=SOURCE, code=v.property, related_information=related or None))
    for u in r.unreached or ():
        if u.span.file == r.spec:
            out.append(T.Diagnostic(range=_range(u.span), message=f"never executed: {u.statement}",
                                    severity=T.DiagnosticSeverity.Information, source=SOURCE, code="unreached"))
    stopped = f"; stopped early: {r.stop.detail}" if r.stop else ""
    summary = f"{LABEL[r.status]}: {r.verdict}, {r.stats.states} states{stopped}"
    severity = {"pass": T.DiagnosticSeverity.Hint, "fail": T.DiagnosticSeverity.Error,
                "vacuous": T.DiagnosticSeverity.Error}.get(r.status, T.DiagnosticSeverity.Warning)
    out.append(T.Diagnostic(range=_range(None), message=summary, severity=severity, source=SOURCE, code="verdict"))
    return out


def server(options: Options):
    from pygls.lsp.server import LanguageServer

    from checker.cache import version

    ls = LanguageServer(SOURCE, version(), text_document_sync_kind=T.TextDocumentSyncKind.Full)

    def publish(uri: str, text: str, check: bool) -> None:
        ls.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics(text, uri, check=check, options=options)))

    @ls.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: T.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri, params.text_document.text, False)

    @ls.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: T.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        publish(uri, ls.workspace.get_text_document(uri).source, False)

    @ls.feature(T.TEXT_DOCUMENT_DID_SAVE, T.SaveOptions(include_text=True))
    def did_save(params: T.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        text = params.text if params.text is not None else ls.workspace.get_text_document(uri).source
        publish(uri, text, True)

    return ls


def serve(max_states: int, timeout: float | None) -> None:
    server(Options(max_states=max_states, timeout=timeout)).start_io()
