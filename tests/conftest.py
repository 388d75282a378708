import sys
from pathlib import Path

sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"
