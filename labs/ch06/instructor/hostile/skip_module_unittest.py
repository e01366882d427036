"""Lab ch06: asks to be skipped at import (unittest.SkipTest), hoping "skipped" is not "failed".
unittest is not allowed; it is reached through __import__, which the scan flags."""

import math

raise __import__("unittest").SkipTest("this submission does not need grading")
