"""Type stubs of the native module (python/src/lib.rs)."""

from os import PathLike
from typing import List, Optional, Sequence, Tuple, Union

_Path = Union[str, "PathLike[str]"]

__version__: str

class SsdlabError(Exception):
    """A simulation or input error, with the command line's message."""

def run(
    *,
    preset: Optional[str] = ...,
    config: Optional[_Path] = ...,
    scheme: Optional[str] = ...,
    conventions: Optional[str] = ...,
    sets: Sequence[str] = ...,
    workload: Optional[str] = ...,
    trace: Optional[_Path] = ...,
    trace_format: Optional[str] = ...,
    profile: Optional[_Path] = ...,
    precondition: Optional[str] = ...,
    seed: Optional[int] = ...,
    save_state: Optional[_Path] = ...,
    load_state: Optional[_Path] = ...,
    limit: Optional[int] = ...,
    flows: Sequence[str] = ...,
    alone: bool = ...,
) -> str: ...
def sweep(
    spec: _Path,
    out: _Path,
    *,
    jobs: Optional[int] = ...,
    shard: Optional[str] = ...,
    merge: Sequence[_Path] = ...,
    seeds: Optional[int] = ...,
) -> None: ...
def sweep_runs(spec: _Path, *, seeds: Optional[int] = ...) -> List[Tuple[int, str, str]]: ...
def compare(dir: _Path, a: str, b: str) -> str: ...
def spec_toml(json: str) -> str: ...
def presets() -> str: ...
def schemes() -> str: ...
def workloads() -> str: ...
