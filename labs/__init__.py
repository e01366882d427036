"""The labs: one folder per lab, with its handout, starter, shared tests and metadata."""
