"""Lab ch06: a debugging print at the top level, 2 MiB of it, past the output limit."""

print("x" * (2 << 20))
