"""Hostile and broken submissions (one file each) and the reports they must produce: see catalogue.py."""
