r"""Multi-process training with PyTorch's own engine (torchrun + DistributedDataParallel), as SimCSE's
official code; SimCSE and JEPA both run on it.

Launch (one node, N processes; gloo on CPU, nccl on GPUs)::

    torchrun --standalone --nproc_per_node=N -m engine simcse --train wiki1m --data-dir ../shared/data \
        --out DIR

What each piece does and the choices made:

- :func:`setup` reads torchrun's environment (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``) and initialises the
  process group (nccl when the device is CUDA, each process on ``cuda:LOCAL_RANK``; gloo otherwise). Without
  torchrun it returns a one-process :class:`World` and nothing is initialised.
- **Global batch.** ``batch_size`` is the *global* batch: every rank draws the same seeded batch and takes
  its contiguous slice of ``batch_size / N`` sentences (:func:`local_slice`), so a run's numbers do not
  depend on N.
- **Negatives from every rank.** :func:`gather_with_grad` all-gathers z1, z2 (z3) and puts the local tensor
  back into its slot so gradients flow through the local embeddings (SimCSE's ``cl_forward``). Every rank then
  computes the *same* global loss; its backward reaches only the local slice, and DDP averages gradients over
  ranks, so the training step back-propagates ``N · loss`` to make the averaged gradient the exact gradient of
  the global loss (the official code leaves out the factor N, i.e. trains at lr / N).
- **DDP** wraps the trained modules with ``static_graph=True`` (the graph is the same every step, and the
  transformer's own pooler, unused by SimCSE's poolers, never receives a gradient).
- **Rank 0 only** evaluates, writes the run folder and saves the encoder; the stop flag is shared once per
  step (:func:`any_rank`) so every rank leaves the loop together. The CLI path is
  :func:`engine.training.cli.run_cli` (rank 0 runs :func:`engine.runlog.runner.run_experiment`, the others
  drain the generator without writing).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch import Tensor, nn

from engine.core import settings
from engine.core.errors import ConfigError


@dataclass(frozen=True)
class World:
    """This process's place among the training processes."""

    rank: int = 0
    size: int = 1
    local_rank: int = 0
    owns_group: bool = False  # initialised here, so destroyed here

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return self.size > 1


def setup(device: torch.device, timeout_minutes: float = 30.0) -> tuple[World, torch.device]:
    """Join torchrun's process group when launched by it; return the world and this process's device."""
    if not settings.torchrun_launch():
        return World(), device
    rank, size = settings.get("torchrun_rank"), settings.get("torchrun_world_size")
    local_rank = settings.get("torchrun_local_rank")
    local_rank = rank if local_rank is None else local_rank
    if device.type == "cuda":
        if local_rank >= torch.cuda.device_count():
            raise ConfigError(f"LOCAL_RANK {local_rank} has no GPU: {torch.cuda.device_count()} visible")
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
    owns = False
    if not dist.is_initialized():
        backend = "nccl" if device.type == "cuda" else "gloo"
        dist.init_process_group(backend, timeout=datetime.timedelta(minutes=timeout_minutes))
        owns = True
    return World(rank, size, local_rank, owns), device


def shutdown(world: World) -> None:
    """Destroy the process group if :func:`setup` created it."""
    if world.owns_group and dist.is_initialized():
        dist.destroy_process_group()


def local_slice(global_size: int, world: World) -> slice:
    """This rank's contiguous share of a global batch (``global_size`` divisible by the world size)."""
    if global_size % world.size:
        raise ConfigError(f"batch_size {global_size} is not divisible by the {world.size} processes")
    share = global_size // world.size
    return slice(world.rank * share, (world.rank + 1) * share)


def gather_with_grad(z: Tensor, world: World) -> Tensor:
    """All-gather ``z`` (n, d) from every rank in rank order; the local slot keeps ``z`` and its gradient."""
    if not world.distributed:
        return z
    parts = [torch.empty_like(z) for _ in range(world.size)]
    dist.all_gather(parts, z.detach().contiguous())
    parts[world.rank] = z
    return torch.cat(parts, dim=0)


def any_rank(flag: bool, world: World, device: torch.device) -> bool:
    """True when ``flag`` is true on any rank (one tiny all-reduce; the stop flag of the loop)."""
    if not world.distributed:
        return flag
    value = torch.tensor([1.0 if flag else 0.0], device=device)
    dist.all_reduce(value, op=dist.ReduceOp.MAX)
    return bool(value.item() > 0)


def wrap(module: nn.Module, world: World, device: torch.device) -> nn.Module:
    """``module`` wrapped in DDP when distributed (rank 0's weights are broadcast to all), else as is."""
    if not world.distributed:
        return module
    ids = [device.index] if device.type == "cuda" else None
    return nn.parallel.DistributedDataParallel(module, device_ids=ids, static_graph=True)


def unwrapped(module: nn.Module) -> nn.Module:
    """The module inside a DDP wrapper (itself when not wrapped)."""
    return getattr(module, "module", module)
