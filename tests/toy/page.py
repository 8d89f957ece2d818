"""The toy experiment's page: its sidebar is every knob it declares."""

from ui import experiment

experiment.experiment_page("toy")
