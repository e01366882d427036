"""The trusted pytest process: where a lab's tests run, and what they see of the code under test.

``main`` is the process itself (started ahead of its orders by grader.grading.pytest_process);
``ahead`` starts the run's sandbox from the orders while numpy and pytest load;
``plugin`` holds the pytest hooks: points, verdicts, the progress stream, a queue of
submissions (``incoming`` reads them from the orders' pipe); ``state`` is the session's orders
and state, read once; ``handles`` is the seam a test file holds as ``lab``, answered by
``loader`` in-process or by the wall; ``calls`` records, in-process and when asked, the functions
of the code under test each test calls (grader.kit.reach).
"""
