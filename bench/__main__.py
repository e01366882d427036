import sys

from bench.suite import main

if __name__ == "__main__":  # a process pool's spawned worker imports the main module too
    sys.exit(main())
