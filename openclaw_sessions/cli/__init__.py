"""The command line: parse argv (Typer), call the core once, render the result and map it to
an exit code. The only package that imports Typer or Rich; nothing imports it."""
