"""The kit's benchmark suite (`make bench`, or `python -m bench` from the kit's root).

It lives outside the grader's package on purpose: it uses the instructor's copy of the kit
(the reference, the mutants, the red team's files) and is not part of the student edition.
"""
