"""Lab ch06: imports what the allow-list forbids through importlib."""

import math

import importlib

os = importlib.import_module("os")
