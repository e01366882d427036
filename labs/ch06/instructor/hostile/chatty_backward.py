# A debugging print in Value.backward: about 4 KiB per call, far under the output limit of any
# one test but, over the lab's 27 scalar tests, several times the limit. The limit is per test:
# a worker that serves many tests must not count what earlier tests printed.
_honest_backward = Value.backward


def _chatty_backward(self, *args, **kwargs):
    print("debug: backward from", self.data, "x" * 4_000)
    return _honest_backward(self, *args, **kwargs)


Value.backward = _chatty_backward
