"""engine.core.config_dict: the one config -> dict conversion."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.config_dict import config_dict


@dataclass
class _Config:
    steps: int = 3
    sizes: list[int] = field(default_factory=lambda: [1, 2])


def test_a_dataclass_a_mapping_and_nothing() -> None:
    config = _Config()
    read = config_dict(config)
    assert read == {"steps": 3, "sizes": [1, 2]}
    read["sizes"].append(3)  # a copy: the config is untouched
    assert config.sizes == [1, 2]
    on_disk = {"steps": 5}
    assert config_dict(on_disk) == on_disk and config_dict(on_disk) is not on_disk
    assert config_dict(None) == {} and config_dict(_Config) == {}
