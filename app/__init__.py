"""Live scoreboard for World Series of Mahjong tournaments."""


def __getattr__(name: str) -> str:
    """`app.__version__`, looked up when first asked for (the OpenAPI document, /health):
    importlib.metadata loads the email package and more, which every command line start
    paid for before it did anything (issue 15)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("wsom-scoreboard")
    except PackageNotFoundError:  # a source tree that was never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found
