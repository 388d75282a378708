"""The shared frontend core: what the C++ and MLIR readers both use and neither owns.

errors (ExtractError, Loc), symbolic values (sym), the skeleton builder and printer
(skeleton), the extraction records (extraction) and the config schema (config). Imports only
the language (model/); importing it loads no parser of C++ or MLIR.
"""
