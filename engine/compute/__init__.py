"""The machine a run uses: the device, mixed precision and seeding (:mod:`~engine.compute.device`), the memory
allocator's policy of a training process (:mod:`~engine.compute.allocator`), how many runs share the CPUs and
with how many threads each (:mod:`~engine.compute.lanes`), and the CPU priority of the app's threads
(:mod:`~engine.compute.priority`). Depends only on :mod:`engine.core`.
"""
