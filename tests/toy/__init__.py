"""A toy experiment, registered only by ``tests/pages/test_toy_experiment.py``: the proof that an experiment
is one package and one registration (a config of two knobs, a generator of one measure, an entry, a page
script of one call), and that the CLI, the pages and their contract tests pick it up with no other edit."""
