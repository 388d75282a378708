"""The oracles of the tests, apart from the tests: plain reference interpreters of the
transition system (reference.py) and of happens-before (reference_hb.py), the SPIN oracle
(spin_oracle.py) and the generators of random protocols (strategies*.py) that the
differential tests compare sigproof with."""
