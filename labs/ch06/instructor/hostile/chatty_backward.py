# A debugging print in Value.backward: 400 bytes per call, under the output limit in every test
# (the random graphs' test, a hundred backward passes, prints the most: 40 KiB) but, over the lab's
# scalar tests, more than the limit. The limit is per test: a worker that serves many tests must
# not count what earlier tests printed.
_honest_backward = Value.backward


def _chatty_backward(self, *args, **kwargs):
    print("debug: backward from", self.data, "x" * 400)
    return _honest_backward(self, *args, **kwargs)


Value.backward = _chatty_backward
