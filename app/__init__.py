"""Live scoreboard for World Series of Mahjong tournaments."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("wsom-scoreboard")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
