# WEAKNESS (grader/wall/worker.py, install_guards.guarded_import): the import allow-list is only
# checked when the caller passes the importing module's globals, as the import statement does.
# __import__("os") passes none, so any module is imported; the allow-list's own set is also
# reachable and mutable through __import__.__closure__. The honest code below then keeps every
# point, although the file imports what the lab forbids (the scan flags it, the grade does not
# show it). It should fail to import like `import os` does.
_os = __import__("os")
_subprocess = __import__("subprocess")
CPUS = _os.cpu_count()
