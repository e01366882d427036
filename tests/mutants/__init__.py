"""One catalogue of mutants per lab: tests/mutants/<lab id>.py defines MUTANTS."""
