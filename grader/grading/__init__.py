"""The grader's own process: grade an implementation by running a lab's tests in a pytest process.

``grade`` is the one path every front end takes; ``runner`` starts the pytest processes
(through ``pytest_process``, which keeps one spare) and turns their progress streams into
results, surviving a process that hangs or dies; ``scan`` reads a submission without
running it; ``scratch`` owns the temporary folders. Nothing here imports pytest or numpy.
"""
