"""A toy benchmark and a toy analysis for tests/test_meta_run.py: each one module
(plus a registry line: the description toybench.json, a tuple entry in the test)."""
