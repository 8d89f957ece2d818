"""The toy experiment's page: its sidebar is every knob it declares."""

from tests.toy.entry import EXPERIMENT
from ui import experiment

experiment.experiment_page(EXPERIMENT)
