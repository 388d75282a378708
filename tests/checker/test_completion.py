"""`sigproof completion SHELL`: a completion script that the shell accepts and that completes."""

import io
import shutil
import subprocess

import pytest

from checker.cli import run


def _script(shell):
    out = io.StringIO()
    assert run(["completion", shell], out, io.StringIO()) == 0
    return out.getvalue()


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completes_subcommands_and_options(tmp_path):
    path = tmp_path / "sigproof.bash"
    path.write_text(_script("bash"))
    probe = f"""source {path}
complete_for() {{ COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${{#COMP_LINE}}
  COMPREPLY=(); _shtab_sigproof sigproof "${{@: -1}}" "${{@: -2:1}}"; echo "${{COMPREPLY[@]}}"; }}
complete_for sigproof ver
complete_for sigproof check --ce
"""
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "verify-certificate"
    assert lines[1] == "--certificate"


def test_zsh_script_names_the_subcommands():
    text = _script("zsh")
    assert "#compdef sigproof" in text and "verify-certificate" in text and "replay" in text
