"""`python -m app.cli`: the same command line as the installed `scoreboard`."""

from app.cli import main

main()
