"""Sweeps: an experiment over a grid of declared knobs (and seeds), as a group of runs (:mod:`engine.groups`).

- :mod:`engine.sweep.grid`: ``--grid KNOB=V1,V2`` read through the knobs' declarations
  (:mod:`engine.core.knobs`);
- :mod:`engine.sweep.ray_run`: :class:`~engine.sweep.ray_run.RayExecutor`, the members on a pool of warm Ray
  actors with declared resources, dispatched by Ray's ``ActorPool`` (the optional extra ``cluster``,
  imported on use);
- :mod:`engine.sweep.cli`: ``python -m engine sweep EXPERIMENT …``.

No scheduler of the lab's own: locally the members run one by one; on Ray, Ray places the actors and
``ray.util.ActorPool`` hands each free one the next member.
"""
