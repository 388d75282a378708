"""`sigproof lsp`: a real JSON-RPC exchange over stdio with the server as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from queue import Empty, Queue

import pytest

from conftest import ROOT, SPECS

BROKEN = "ranks 2;\nsignal flag;\nkernel {\n    TWAIT(flagg, 1, EQ);\n}\n"


class Client:
    """A minimal LSP client: Content-Length framed JSON-RPC on the server's stdin and stdout."""

    def __init__(self, *args):
        script = Path(sys.executable).parent / "sigproof"  # the installed command, as an editor starts it
        cmd = [str(script)] if script.exists() else [sys.executable, "-m", "checker"]
        self.proc = subprocess.Popen([*cmd, "lsp", *args], cwd=ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox: Queue = Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                k, _, v = line.decode("ascii").partition(":")
                headers[k.strip().lower()] = v.strip()
            self.inbox.put(json.loads(out.read(int(headers["content-length"]))))

    def send(self, method, params, *, request=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            msg["id"] = self.next_id
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return msg.get("id")

    def wait_for(self, pred, timeout=30.0):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no such message from the server; stderr: " + self._stderr())
            try:
                msg = self.inbox.get(timeout=left)
            except Empty:
                continue
            if pred(msg):
                return msg

    def diagnostics(self, uri):
        return self.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == uri)["params"]["diagnostics"]

    def _stderr(self):
        self.proc.kill()
        return self.proc.stderr.read().decode(errors="replace")[-3000:]

    def close(self):
        try:
            rid = self.send("shutdown", None, request=True)
            self.wait_for(lambda m: m.get("id") == rid, timeout=10)
            self.send("exit", None)
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.stdin.close()
            self.proc.stdout.close()
            self.proc.stderr.close()


@pytest.fixture(scope="module")
def client():
    c = Client("--max-states", "50000")
    rid = c.send("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, request=True)
    reply = c.wait_for(lambda m: m.get("id") == rid)
    assert reply["result"]["serverInfo"]["name"] == "sigproof"
    assert reply["result"]["capabilities"]["textDocumentSync"]["change"] == 1  # full text
    c.send("initialized", {})
    yield c
    c.close()


def _open(client, uri, text):
    client.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "sig", "version": 1,
                                                          "text": text}})


def test_a_broken_spec_gets_its_error_as_a_diagnostic(client, tmp_path):
    uri = (tmp_path / "broken.sig").as_uri()
    _open(client, uri, BROKEN)
    (d,) = client.diagnostics(uri)
    assert d["severity"] == 1 and d["source"] == "sigproof"
    assert "flagg" in d["message"]
    assert d["range"] == {"start": {"line": 3, "character": 10}, "end": {"line": 3, "character": 15}}


def test_a_fix_clears_the_diagnostics_and_a_syntax_error_is_reported(client, tmp_path):
    uri = (tmp_path / "edit.sig").as_uri()
    _open(client, uri, BROKEN)
    assert len(client.diagnostics(uri)) == 1
    fixed = BROKEN.replace("flagg", "flag")
    client.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                           "contentChanges": [{"text": fixed}]})
    assert client.diagnostics(uri) == []
    client.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3},
                                           "contentChanges": [{"text": "ranks 2;\nkernel { TWAIT( }\n"}]})
    (d,) = client.diagnostics(uri)
    assert d["severity"] == 1 and d["range"]["start"]["line"] == 1


def test_save_publishes_the_verdict_with_the_counterexample(client):
    path = SPECS / "bug_host_reset_race.sig"
    uri = path.as_uri()
    text = path.read_text().replace("expect lost_notification;", "").replace("expect deadlock;", "")
    _open(client, uri, text)
    assert client.diagnostics(uri) == []
    client.send("textDocument/didSave", {"textDocument": {"uri": uri}, "text": text})
    found = client.diagnostics(uri)
    by_code = {d["code"]: d for d in found}
    assert set(by_code) == {"deadlock", "lost_notification", "verdict"}
    assert by_code["verdict"]["message"].startswith("FAIL: deadlock, lost_notification (expected ok)")
    lost = by_code["lost_notification"]
    assert lost["severity"] == 1 and lost["range"]["start"]["line"] == 22  # `reset flag;` on line 23
    steps = lost["relatedInformation"]
    assert steps[0]["message"].startswith("1. host 0: launch") and all(s["location"]["uri"] == uri for s in steps)
    assert steps[-1]["location"]["range"]["start"] == {"line": 22, "character": 8}
