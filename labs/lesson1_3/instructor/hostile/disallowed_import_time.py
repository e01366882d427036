# The honest solution with a timing import left at the bottom: time is not on the allow-list.
import time

STARTED = time.perf_counter()
