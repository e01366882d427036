"""Appended to the honest reference: the worker's own server, found on the stack, answers the first read of
several values after relu(0) with one value more than was asked for. relu(0) is first computed in
test_value_relu_gradient_is_zero_at_zero, whose reads are one value each; the child that served it goes on
to the next tests, and the first to read several values at once is test_value_random_graphs.
The trusted side must call it what it is, a broken protocol, and stop the child at once: it once waited
5 s for a child it had not stopped, in every test that read (a review's worker did it at every read)."""

import numpy as np

_sys = np._core.numeric.sys
_armed = []
_honest_relu = Value.relu


def _arm():
    frame = _sys._getframe(1)
    while frame is not None:
        server = frame.f_locals.get("self")
        if frame.f_code.co_name == "dispatch" and hasattr(server, "reply_error"):
            honest = server.dispatch

            def dispatch(message, decoder):
                answer = honest(message, decoder)
                if message.get("op") == "getattrs" and _armed:
                    _armed.clear()
                    server.dispatch = honest
                    return [*answer, 0.0]
                return answer

            server.dispatch = dispatch
            _armed.append(server)
            return
        frame = frame.f_back


def _relu(self):
    if self.data == 0.0 and not _armed:
        _arm()
    return _honest_relu(self)


Value.relu = _relu
