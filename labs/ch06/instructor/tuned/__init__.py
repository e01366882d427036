"""Submissions tuned to the visible tests: each gets full marks on labs/ch06/test_lab.py and must fail every
test of labs/ch06/hidden/test_hidden.py, which checks the same properties on other seeds, shapes and values."""
