"""A group's members on Ray: a pool of warm workers, one Ray actor per trial slot (``cpus_per_trial`` CPUs,
``gpus_per_trial`` GPUs each), that run trial after trial (:class:`TrialWorker`); Ray's own
``ray.util.ActorPool`` hands each free actor the next member. Each trial writes its ordinary run folder into
the group (:func:`engine.groups.execute_member`), and the driver keeps ``group.json`` (the run folder on
disk stays the one source of truth). A worker imports torch and the lab once and keeps what a process keeps
warm between runs (the encoder's files and the embedding cache read once, the allocator), so a short trial
costs on Ray what it costs in a process that runs them one by one.

``ray.init()`` starts a local Ray (without the dashboard) when no cluster is named; ``--address`` (else
Ray's own ``RAY_ADDRESS``, read in :mod:`engine.core.settings`) joins one. A local Ray started here is shut
down when the sweep ends, on an error, on Ctrl-C and on SIGTERM; a SIGKILLed driver cannot shut it down
(docs/reliability.md says what is left and how to clean it). On a cluster of several machines the group
folder must be on a file system every node sees (the trials write there), and the lab must be installed on
every node. Ray is the optional extra ``cluster`` (``pip install -e ".[cluster]"``), imported only here.
"""

from __future__ import annotations

import importlib.util
import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any

from engine.core import settings
from engine.core.errors import ConfigError, one_line
from engine.groups import Group, Member, execute_member
from engine.groups.runner import STOPPED, Outcome

#: Ray 2.59+ protects a head with a token when ~/.ray/auth_token exists, but a driver that joins it sends the
#: token only with RAY_AUTH_MODE=token (ray-project/ray#64755)
AUTH_HINT = "; a head with token authentication also needs RAY_AUTH_MODE=token here"
MISSING = 'a sweep with --ray needs Ray: pip install -e ".[cluster]"'
CLIENT = "ray://"
#: a ``ray://`` address is Ray Client's, whose gRPC dependency is the extra ``ray[client]``
CLIENT_MISSING = (
    '{address}: a ray:// address needs Ray Client (pip install "ray[client]"); or join the head by its '
    "host:port (e.g. --address 10.0.0.5:6379)"
)
POLL_S = 0.5  # the driver looks for a finished trial this often (Ctrl-C and SIGTERM are seen in between)
DIED = "the Ray worker running it died: "
NO_WORKER = "no Ray worker was left to run it (every worker of the pool died)"


def require_ray() -> Any:
    """The ``ray`` module, or one ConfigError line saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(MISSING) from None
    return ray


def runtime_env() -> dict[str, Any]:
    """What each worker needs from this process: the lab's variables and this checkout first on its import
    path (:func:`engine.core.settings.worker_environment`; a head started elsewhere knows neither)."""
    return {"env_vars": settings.worker_environment()}


def is_client(address: str | None) -> bool:
    return bool(address) and address.strip().lower().startswith(CLIENT)


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """A ``host:port`` or ``ray://host:port`` address must accept a connection within ``timeout`` seconds (Ray
    itself retries an absent head for minutes); ``auto`` is left to Ray. A ``ray://`` address needs Ray
    Client's extra installed first."""
    target = address.strip()
    if is_client(target):
        if importlib.util.find_spec("grpc") is None:
            raise ConfigError(CLIENT_MISSING.format(address=f"--address {address}"))
        target = target[len(CLIENT) :]
    host, colon, port = target.rpartition(":")
    if not colon or not port.isdigit() or "/" in target:
        return
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as err:
        what = "no Ray Client server" if is_client(address) else "no Ray head"
        raise ConfigError(
            f"--address {address}: {what} answers there ({err.strerror or err}); start one with "
            "ray start --head, or leave --address out for a local Ray"
        ) from None


def connect_error(address: str | None, err: BaseException) -> str:
    """The one line for a Ray that cannot be joined or started: Ray's own reason without its help text (an
    authentication error's advice on tokens), and the lab's token hint only where it can apply, a head
    joined by its address (a Ray Client ``ray://`` address authenticates otherwise, a local Ray is this
    process's own)."""
    where = f"--address {address}" if address else "a local Ray"
    reason = getattr(err, "message", None) if type(err).__name__ == "AuthenticationError" else None
    reason = f"{type(err).__name__}: {' '.join(str(reason).split())}" if reason else one_line(err)
    if is_client(address) and "ray[client]" in reason:
        return CLIENT_MISSING.format(address=where)
    hint = AUTH_HINT if address and not is_client(address) else ""
    return f"{where}: cannot connect ({reason[:200]}){hint}"


class TrialWorker:
    """A Ray actor's body: one worker process that runs trial after trial of one experiment, with torch on
    ``threads`` threads. Its set-up imports the experiment (torch, the lab) once; every trial then runs as
    in a process that runs them one by one."""

    def __init__(self, kind: str, threads: int):
        import torch

        from engine.experiments import EXPERIMENTS

        torch.set_num_threads(threads)
        experiment = EXPERIMENTS[kind]
        if experiment.load_code is not None:
            experiment.load_code()  # the experiment's modules, once per worker
        self.threads = threads

    def run(self, group_path: str, kind: str, fields: dict[str, Any], member_id: str) -> Outcome:
        """One member into its run folder: its id and None when it finished, else its one line."""
        return member_id, execute_member(group_path, kind, fields, member_id, self.threads)


class RayExecutor:
    """Run members on a pool of Ray actors of ``cpus_per_trial`` CPUs (torch gets as many threads) and
    ``gpus_per_trial`` GPUs (a fraction shares one), as many actors as the cluster has room for (at most one
    per member). ``address``: a cluster to join (None: the ``RAY_ADDRESS`` setting, else a local Ray of
    ``local_cpus`` CPUs, default all). A Ray already initialised in this process is used as it is and left
    running; one started here is shut down at the end. A member is ``running`` from the moment an actor
    takes it; the actors are ended when the sweep ends, however it ends."""

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
        cluster that cannot be reached is one ConfigError line. A local Ray starts without the dashboard."""
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
        except Exception as err:  # noqa: BLE001 - ConnectionError, ValueError, Ray's AuthenticationError…
            raise ConfigError(connect_error(self.address, err)) from None
        self.owned = True

    def close(self) -> None:
        """Shut down the Ray this executor started (a Ray started elsewhere keeps running)."""
        if self.owned:
            require_ray().shutdown()
            self.owned = False

    def run(self, group: Group, members: list[Member], started: Callable[[str], None]) -> Iterator[Outcome]:
        self.connect()
        try:
            if members:
                yield from self._run(require_ray(), group, members, started)
        finally:
            self.close()

    def slots(self, ray: Any) -> int:
        """How many trials the cluster can run at once (at least 1: an autoscaler may add room)."""
        resources = ray.cluster_resources()
        room = int(resources.get("CPU", 0) // self.cpus_per_trial)
        if self.gpus_per_trial > 0:
            room = min(room, int(resources.get("GPU", 0) // self.gpus_per_trial))
        return max(1, room)

    def _run(
        self, ray: Any, group: Group, members: list[Member], started: Callable[[str], None]
    ) -> Iterator[Outcome]:
        from ray.util import ActorPool

        threads = max(1, int(self.cpus_per_trial))
        worker = ray.remote(
            num_cpus=self.cpus_per_trial, num_gpus=self.gpus_per_trial, max_restarts=0, max_task_retries=0
        )(TrialWorker)
        actors = [worker.remote(group.kind, threads) for _ in range(min(len(members), self.slots(ray)))]
        running: dict[str, Any] = {}  # a dispatched member's id -> its result, until reported

        def dispatch(actor: Any, member: Member) -> Any:
            """ActorPool calls this when ``actor`` is free: the member starts now."""
            started(member.id)
            ref = actor.run.remote(str(group.path), group.kind, group.config_of(member), member.id)
            running[member.id] = ref
            return ref

        pool = ActorPool(actors)
        for member in members:
            pool.submit(dispatch, member)
        if self.echo:
            print(f"{len(members)} trials on {len(actors)} Ray workers", file=sys.stderr, flush=True)
        reported: set[str] = set()
        try:
            while pool.has_next():
                outcome, died = self._next(ray, pool, running)
                if died:  # the pool dropped that actor: a fresh one takes its place
                    actors.append(worker.remote(group.kind, threads))
                    pool.push(actors[-1])
                if outcome is None:
                    continue
                reported.add(outcome[0])
                yield outcome
                if self.echo:
                    left = len(members) - len(reported)
                    print(f"done: {outcome[0]} ({left} left)", file=sys.stderr, flush=True)
            for member in members:  # never dispatched: every actor of the pool died
                if member.id not in reported:
                    yield member.id, NO_WORKER
        except KeyboardInterrupt:
            self._end(ray, actors)
            for member_id in list(running):
                yield member_id, STOPPED
            raise
        finally:
            self._end(ray, actors)

    @staticmethod
    def _next(ray: Any, pool: Any, running: dict[str, Any]) -> tuple[Outcome | None, bool]:
        """The next finished member and its outcome (None: none finished within :data:`POLL_S`), and
        whether its actor died (ActorPool then leaves it out)."""
        try:
            member_id, error = pool.get_next_unordered(timeout=POLL_S)
        except TimeoutError:
            return None, False
        except Exception as err:  # noqa: BLE001 - a lost worker is the member's failure, one line
            member_id = _lost(ray, running)
            running.pop(member_id, None)
            return (member_id, f"{DIED}{one_line(err)}"[:500]), isinstance(err, ray.exceptions.ActorDiedError)
        running.pop(member_id, None)
        return (member_id, error), False

    @staticmethod
    def _end(ray: Any, actors: list[Any]) -> None:
        """End the pool's actors (their trials stop where they are; the CPUs go back to the cluster)."""
        for actor in actors:
            try:
                ray.kill(actor)
            except Exception:  # noqa: BLE001,S112 - already gone
                continue
        actors.clear()


def _lost(ray: Any, running: dict[str, Any]) -> str:
    """The dispatched member whose result is an error (its worker died): one whose result is ready and
    raises. Two lost at once are both reported, each once, in either order."""
    for member_id, ref in running.items():
        ready, _ = ray.wait([ref], timeout=0)
        if ready:
            try:
                ray.get(ref)
            except Exception:  # noqa: BLE001 - that is the one
                return member_id
    return next(iter(running))
