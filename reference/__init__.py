"""The instructor's solutions, one package per lab, with the same public names as the starters."""
