"""The .sig protocol language and its meaning: parsing, checks, lowering, transition system."""

from model.errors import Span, SpecError, SpecErrors
from model.lower import compile_spec
from model.parser import parse
from model.system import System

__all__ = ["Span", "SpecError", "SpecErrors", "parse", "compile_spec", "System"]
