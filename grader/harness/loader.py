"""Loading the code under test into this process (in-process grading: the student's own code, the reference).

Loading is lazy and its failure is a verdict: a file that does not import makes every
test fail with one message naming the cause and the line, instead of breaking collection.
The file is read through grader.intake, as every way in reads it, and what runs is the
text intake decoded. Its imports are held to the lab's allow-list as behind the wall, and it may
make no file (feedback, not protection: in-process grading runs code its owner trusts), so that the
file gets one verdict.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.machinery
import importlib.util
import itertools
import sys
from pathlib import Path

from grader import intake, labs, verdicts
from grader.implementation import Implementation
from grader.verdicts import SubmissionError
from grader.wall.worker import NEW_NAME_EVENTS, import_refusal, new_name_refusal

_load_counter = itertools.count()
_allowed_imports: dict[str, frozenset[str]] = {}  # a loaded file's path (its code's file name): its lab's list


def _hold_imports_to_the_list(path: Path, allowed) -> None:
    """Refuse the imports of the file at ``path`` that its lab does not allow, as the worker does."""
    if not _allowed_imports:
        original_import = builtins.__import__

        def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
            allowed = _allowed_imports.get(sys._getframe(1).f_code.co_filename)  # the importing code's file
            if allowed is not None:
                refusal = import_refusal(name, level, allowed)
                if refusal:
                    raise ImportError(refusal)
            return original_import(name, globals, locals, fromlist, level)

        builtins.__import__ = guarded_import
        sys.addaudithook(_refuse_new_files_from_loaded_code)
    _allowed_imports[str(path)] = frozenset(allowed)


def _refuse_new_files_from_loaded_code(event: str, args: tuple) -> None:
    """Refuse a new file, folder or link asked for by a loaded file's code, in the words the worker uses.

    Behind the wall the kernel refuses every new name to the code under test; here nothing would,
    and the file would pass in-process and fail behind the wall. Only the loaded files' own frames
    count (pytest and the tests make files as they like), and only these events pay for the look."""
    if event != "open" and event not in NEW_NAME_EVENTS:
        return
    refusal = new_name_refusal(event, args)
    if refusal is None:
        return
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename in _allowed_imports:
            raise PermissionError(refusal)
        frame = frame.f_back


def describe_import_failure(exc: BaseException, path: Path) -> SubmissionError:
    """The verdict for the file at ``path``, whose import raised ``exc``."""
    if isinstance(exc, SyntaxError) and exc.filename == str(path):
        return verdicts.syntax_error(path.name, exc.lineno, exc.msg)
    line = None
    tb = exc.__traceback__
    while tb is not None:  # the last frame of the file itself (not a library's of the same name)
        if tb.tb_frame.f_code.co_filename == str(path):
            line = tb.tb_lineno
        tb = tb.tb_next
    return verdicts.import_failed(path.name, type(exc).__name__, line, str(exc))


def load(lab: labs.Lab, impl: Implementation):
    """The module of ``impl`` for ``lab``, imported here; SubmissionError if it cannot be."""
    if impl.kind == "ref":
        if not lab.reference_dir.is_dir():  # the student edition ships without it
            raise SubmissionError(verdicts.NO_REFERENCE, f"grade your own work: make lab LAB={lab.id}")
        return importlib.import_module(lab.reference_package)
    path = impl.path
    if not path.is_file():
        raise verdicts.no_file(path.name)
    source = intake.read(path)
    module_name = f"labkit_under_test_{lab.id}_{next(_load_counter)}"  # a queue loads many files
    # The loader named: without it a file whose name does not end in .py gets no spec.
    spec = importlib.util.spec_from_file_location(
        module_name, path, loader=importlib.machinery.SourceFileLoader(module_name, str(path))
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # classes defined in it need their module registered
    try:
        # Compiled from intake's text, not the file's bytes, which the compiler would let pass
        # with a stray byte in a comment; dont_inherit: this module's __future__ flags are not its.
        code = compile(source.text, str(path), "exec", dont_inherit=True)
    except (RecursionError, MemoryError):  # as the wall's worker says it
        sys.modules.pop(module_name, None)
        raise verdicts.syntax_error(path.name, None, verdicts.TOO_DEEP_TO_COMPILE) from None
    except SyntaxError as exc:
        sys.modules.pop(module_name, None)
        raise describe_import_failure(exc, path) from None
    _hold_imports_to_the_list(path, lab.allowed_imports)
    try:
        exec(code, module.__dict__)
    except BaseException as exc:  # noqa: BLE001 - whatever the file does at import is reported, not raised
        sys.modules.pop(module_name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise describe_import_failure(exc, path) from None
    return module
