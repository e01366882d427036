"""The gradient through a softmax: probabilities minus the one-hot target."""


def softmax_cross_entropy(logits, target):
    """Softmax of ``logits`` (a list of Values) and the cross-entropy loss -log p[target].

    Returns ``(probs, loss)``: a list of Values and a Value, all built from ``logits``
    so that ``loss.backward()`` fills in each logit's gradient. The largest logit is
    subtracted first (a constant: softmax does not change), so logits near 1000 do
    not overflow.
    """
    # BEGIN SOLUTION softmax
    m = max(v.data for v in logits)
    exps = [(v - m).exp() for v in logits]
    total = exps[0]
    for e in exps[1:]:
        total = total + e
    probs = [e / total for e in exps]
    loss = -(probs[target].log())
    return probs, loss
    # END SOLUTION
