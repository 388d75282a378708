"""`UsageError`: a mistake on the command line or in the arguments of a library call (exit
status 2). Its own module, so that the command line can report one without loading the engine."""


class UsageError(Exception):
    """A mistake on the command line or in the arguments of a library call (exit status 2)."""
