"""The wall: grading code we do not trust in a separate, sandboxed worker process.

The lab's tests run unchanged in the trusted pytest process; ``grader.harness.handles``
hands them proxies (proxy.py) whose operations become messages to the worker
(session.py on the trusted side, worker.py inside the sandbox, codec.py between them).
The sandbox is bubblewrap with seccomp filters (sandbox.py, bubblewrap.py, syscalls.py,
uids.py); the harness's session (grader.harness.state) tells the wall where each test
begins and ends.
"""
