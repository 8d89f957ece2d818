"""A group's members as Ray tasks: each trial is one task that writes its ordinary run folder into the group
(:func:`engine.groups.execute_member`); Ray schedules them on the resources each declares.

``ray.init()`` starts a local Ray when no cluster is named; ``--address`` (else Ray's own ``RAY_ADDRESS``,
read in :mod:`engine.settings`) joins one. On a cluster of several machines the group folder must be on a
file system every node sees (the tasks write there), and the lab must be installed on every node.
Ray is the optional extra ``cluster`` (``pip install -e ".[cluster]"``) and is imported only here, on use.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any

from engine import settings
from engine.errors import ConfigError, one_line
from engine.groups import Group, Member, execute_member
from engine.groups.runner import STOPPED, Outcome

#: Ray 2.59+ protects a head with a token when ~/.ray/auth_token exists, but a driver that joins it sends the
#: token only with RAY_AUTH_MODE=token (ray-project/ray#64755)
AUTH_HINT = "; a head with token authentication also needs RAY_AUTH_MODE=token here"
MISSING = 'a sweep with --ray needs Ray: pip install -e ".[cluster]"'


def require_ray() -> Any:
    """The ``ray`` module, or one ConfigError line saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(MISSING) from None
    return ray


def runtime_env() -> dict[str, Any]:
    """What each worker needs from this process: the lab's variables and this checkout first on its import
    path (:func:`engine.settings.worker_environment`; a head started elsewhere knows neither)."""
    return {"env_vars": settings.worker_environment()}


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """A ``host:port`` address must accept a connection within ``timeout`` seconds (Ray itself retries an
    absent head for minutes); ``auto`` and ``ray://`` addresses are left to Ray."""
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit() or "//" in address:
        return
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as err:
        raise ConfigError(
            f"--address {address}: no Ray head answers there ({err.strerror or err}); start one with "
            "ray start --head, or leave --address out for a local Ray"
        ) from None


def connect_error(address: str | None, err: BaseException) -> str:
    """The one line for a Ray that cannot be joined or started. The token hint only where it can apply: a
    head joined by its address (a Ray Client ``ray://`` address authenticates otherwise, a local Ray is
    this process's own)."""
    where = f"--address {address}" if address else "a local Ray"
    hint = AUTH_HINT if address and not address.strip().lower().startswith("ray://") else ""
    return f"{where}: cannot connect ({one_line(err)[:200]}){hint}"


class RayExecutor:
    """Run members as Ray tasks of ``cpus_per_trial`` CPUs (torch gets as many threads) and
    ``gpus_per_trial`` GPUs (a fraction shares one). ``address``: a cluster to join (None: the
    ``RAY_ADDRESS`` setting, else a local Ray of ``local_cpus`` CPUs, default all). A Ray already
    initialised in this process is used as it is and left running; one started here is shut down at the
    end. Ray sees a member as ``running`` from its submission (it may wait there for free resources)."""

    def __init__(
        self,
        address: str | None = None,
        cpus_per_trial: float = 1,
        gpus_per_trial: float = 0,
        local_cpus: int | None = None,
        echo: bool = True,
    ):
        if cpus_per_trial <= 0:
            raise ConfigError(f"--cpus-per-trial must be above 0, got {cpus_per_trial:g}")
        if gpus_per_trial < 0:
            raise ConfigError(f"--gpus-per-trial must be 0 or more, got {gpus_per_trial:g}")
        self.address = address or settings.get("ray_address")
        self.cpus_per_trial = cpus_per_trial
        self.gpus_per_trial = gpus_per_trial
        self.local_cpus = local_cpus
        self.echo = echo
        self.owned = False

    def connect(self) -> None:
        """Start or join Ray now (before a sweep writes anything), unless Ray is up in this process; a
        cluster that cannot be reached is one ConfigError line."""
        ray = require_ray()
        if self.address:
            check_reachable(self.address)
        if ray.is_initialized():
            return
        options: dict[str, Any] = {"runtime_env": runtime_env(), "log_to_driver": False}
        if self.address:
            options["address"] = self.address
        else:
            options.update(include_dashboard=False, num_cpus=self.local_cpus)
        try:
            ray.init(**options)
        except (ConnectionError, RuntimeError, ValueError) as err:
            raise ConfigError(connect_error(self.address, err)) from None
        self.owned = True

    def close(self) -> None:
        """Shut down the Ray connection this executor started (a Ray started elsewhere keeps running)."""
        if self.owned:
            require_ray().shutdown()
            self.owned = False

    def run(self, group: Group, members: list[Member], started: Callable[[str], None]) -> Iterator[Outcome]:
        self.connect()
        try:
            yield from self._run(require_ray(), group, members, started)
        finally:
            self.close()

    def _run(
        self, ray: Any, group: Group, members: list[Member], started: Callable[[str], None]
    ) -> Iterator[Outcome]:
        task = ray.remote(num_cpus=self.cpus_per_trial, num_gpus=self.gpus_per_trial, max_retries=0)(
            execute_member
        )
        threads = max(1, int(self.cpus_per_trial))
        running: dict[Any, str] = {}
        for member in members:
            started(member.id)
            fields = group.config_of(member)
            running[task.remote(str(group.path), group.kind, fields, member.id, threads)] = member.id
        if self.echo:
            print(f"{len(running)} trials submitted to Ray", file=sys.stderr, flush=True)
        try:
            while running:
                (ref,), _ = ray.wait(list(running), num_returns=1)
                member_id = running.pop(ref)
                yield member_id, self._outcome(ray, ref)
                if self.echo:
                    print(f"done: {member_id} ({len(running)} left)", file=sys.stderr, flush=True)
        except KeyboardInterrupt:
            for ref, member_id in list(running.items()):
                ray.cancel(ref, force=True)
                yield member_id, STOPPED
            raise

    @staticmethod
    def _outcome(ray: Any, ref: Any) -> str | None:
        """The task's own result (None or its one line), or the one line of a task that died (a worker
        killed, out of memory)."""
        try:
            return ray.get(ref)
        except Exception as err:  # noqa: BLE001 - a lost worker is the member's failure, one line
            return f"the Ray task failed: {one_line(err)}"[:500]
