"""Submissions tuned to lab lesson1_3's visible tests: they pass every test of test_lab.py yet fail the hidden ones
(labs/lesson1_3/hidden/), the proof that the hidden set catches tuning. For instructors only: never in the
student edition."""
