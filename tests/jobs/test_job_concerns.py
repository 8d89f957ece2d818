"""Job is split by concern (issue 50, item 5): its rows are ``job.rows`` (RunRows) and its pictures
``job.pictures`` (RunPictures); Job itself keeps no one-line method that only hands a call on to either, so
there is one place to read each thing and Job holds only what needs its own state."""

from __future__ import annotations

import ast
import inspect

from engine.jobs import job as job_module
from engine.jobs.job import Job
from engine.jobs.pictures import RunPictures
from engine.jobs.rows import RunRows


def _parts(node: ast.expr) -> list[str]:
    """``self.rows.metrics`` → ["self", "rows", "metrics"] (calls unwrapped); [] for anything else."""
    if isinstance(node, ast.Call):
        return _parts(node.func)
    if isinstance(node, ast.Attribute):
        inner = _parts(node.value)
        return [*inner, node.attr] if inner else []
    return [node.id] if isinstance(node, ast.Name) else []


def _pass_throughs(source: str) -> list[str]:
    """Methods of the class in ``source`` whose body (past a docstring) is ``return self.rows.X`` or
    ``return self.pictures.X`` (called or not, with no argument of Job's own)."""
    (cls,) = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)]
    found = []
    for method in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
        body = [s for s in method.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            continue
        value = body[0].value
        no_args = not isinstance(value, ast.Call) or not (value.args or value.keywords)
        if no_args and _parts(value)[:2] in (["self", "rows"], ["self", "pictures"]):
            found.append(method.name)
    return found


def test_job_hands_nothing_on_in_one_line() -> None:
    assert _pass_throughs(inspect.getsource(job_module)) == []


def test_the_check_finds_a_pass_through() -> None:
    source = '''
class Job:
    def metrics(self):
        """The rows."""
        return self.rows.metrics()

    @property
    def film(self):
        return self.pictures.film

    def frames(self):
        return self.pictures.frames(self.from_disk)
'''
    assert _pass_throughs(source) == ["metrics", "film"]


def test_a_job_reads_its_rows_and_pictures_through_its_parts() -> None:
    assert not set(vars(Job)) & {"metrics", "last_step", "points", "film", "damaged", "bad_rows", "columns"}
    assert {"metrics", "last_step", "records", "columns", "bad_rows", "steps_per_second"} <= set(
        vars(RunRows)
    )
    assert {"points", "frames", "view", "missing_film_step", "film_line"} <= set(vars(RunPictures))
