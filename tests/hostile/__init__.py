"""The red team's catalogue of every lab's hostile and broken submissions: see catalogue.py (the files
and their entries live in each lab's instructor/hostile/ folder)."""
