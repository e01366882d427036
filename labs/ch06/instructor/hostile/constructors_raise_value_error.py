"""Lab ch06's starter whose Value and Tensor raise ValueError as soon as they are made (a security review's
file): a test that expects a ValueError from the student's gradcheck must not take one that came before
gradcheck looked at anything. It scored 1/120 against the starter's 0, from
test_gradcheck_rejects_a_multi_element_output.
"""


class Value:
    def __init__(self, *args, **kwargs):
        raise ValueError("no engine here")


class Tensor:
    def __init__(self, *args, **kwargs):
        raise ValueError("no engine here")
