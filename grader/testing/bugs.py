"""The bugs a hint can name: one closed vocabulary, shared by the kit's diagnoses and its own tests.

A failure names a bug by using its words. The diagnoses (grader.testing.gradients) and the
labs' tests write a bug's ``label`` when they recognise it; the kit's tests grade every
mutant of each lab's catalogue and check that the first failing test's message and hint
name the mutant's bug, or at least no other (tests/test_mutants.py). So a word that names a
bug here must not slip into a hint about something else: "sign" in a hint about a transpose
would send a student after the wrong line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Bug:
    kind: str
    label: str  # how a hint names it, in the words a student would recognise
    words: str  # a regular expression (case-insensitive): a text that matches it names this bug

    def named_in(self, text: str) -> bool:
        return re.search(self.words, text, re.IGNORECASE) is not None


def _bugs(*bugs: Bug) -> dict[str, Bug]:
    return {bug.kind: bug for bug in bugs}


BUGS = _bugs(
    Bug("type", "the wrong type", r"wrong type|should be a float\b|should have dtype float64|should be a numpy array"),
    Bug("overwrite", "`=` instead of `+=`", r"`=` instead of `\+=`|`\+=`, not `=`|\boverwr(ite|ites|itten|ote)\b"),
    Bug("other_operand", "its own value instead of the other operand's", r"other operand's value|own value instead"),
    Bug("sign", "the wrong sign", r"\bsign\b"),  # \b: "assign" is not a sign
    Bug("factor", "a missing or extra factor", r"\bfactor\b"),
    Bug("chain_rule", "out.grad left out (the chain rule)", r"chain rule"),
    Bug("derivative", "the wrong local derivative", r"wrong local derivative|local derivative of|derivative of \w+ is"),
    Bug("detached", "a result outside the graph", r"outside the graph"),
    Bug("reflected", "the operands of a reflected operator in the wrong order", r"reflected operator|operand order"),
    Bug("order", "backward steps out of topological order", r"topological order"),
    Bug(
        "visited",
        "a node's backward step run more than once",
        r"exactly once|visited set|once per path|\bran twice|run more than once",
    ),
    Bug("reset", "gradients reset at the wrong time", r"\breset|zero_grad|\bzero(ed|es)? (the |every )?grad"),
    Bug("seed", "the output's gradient not seeded", r"\bseed(s|ed|ing)? the output|not seeded|\bseeding\b|the seed\b"),
    Bug("unbroadcast", "a broadcast operand's gradient not summed back", r"unbroadcast|broadcast operand"),
    Bug("transpose", "a missing or misplaced transpose", r"transpos"),
    Bug("axis", "the summed axis not restored", r"summed ax[ie]s|keepdims|expand_dims"),
    Bug("raises", "the wrong exception, or none", r"wrong exception|should raise|raises? \w*Error"),
    Bug("numbers", "a plain number not wrapped", r"plain number"),
    Bug("in_place", "the caller's data changed in place", r"in[ -]place|caller's"),
    Bug("numeric", "the wrong difference quotient", r"difference quotient|central difference|one-sided|\b2h\b"),
    Bug("stability", "the logits not shifted by the largest", r"shifted by the largest|largest logit|overflow"),
    Bug("target", "the target's probability not used", r"\btarget\b"),
    Bug("loop", "the training loop's bookkeeping", r"bookkeeping|\bstep \d|\brows?\b|off by one"),
    Bug("eigenvalue", "the wrong curvature", r"curvature|eigenvalue|hessian"),
    Bug("missing_return", "a result not returned", r"not returned|returned None|\breturn\b"),
    Bug("alias", "a view of another array", r"\bview\b|alias"),
    Bug("recursion", "recursion deeper than Python allows", r"recursion"),
    Bug(
        "data_for_grad",
        "`out.data` used where `out.grad` belongs",
        r"`out\.data` (used )?where (it needs )?`out\.grad`",
    ),
    Bug("guard", "the `requires_grad` test of the wrong operand", r"requires_grad` test"),
    Bug("reshape_back", "the gradient not reshaped back to the input's shape", r"reshaped? (the gradient )?back"),
    Bug("call_form", "a form of call the handout allows refused", r"form of call|must also accept one tuple"),
    Bug("nudge", "every argument nudged, not argument i alone", r"nudged every argument|argument i alone"),
    Bug("normalisation", "probabilities that do not sum to 1", r"probabilities (that do not )?sum to"),
    Bug("results_order", "the results returned in the wrong order", r"\(dW, dX\)|results returned in the wrong order"),
)


def named_in(text: str) -> set[str]:
    """The kinds of bug ``text`` names."""
    return {kind for kind, bug in BUGS.items() if bug.named_in(text)}
