"""Reference solution of lab ch06, organised as the chapter's walkthrough: scalar, tensor, gradient checking."""

from .gradcheck import GradcheckError, gradcheck, numerical_grad
from .scalar import Value
from .tensor import Tensor

__all__ = ["Value", "Tensor", "numerical_grad", "gradcheck", "GradcheckError"]
