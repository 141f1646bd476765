"""One module per command (app.COMMANDS lists them): its parameters and help (``command``,
whose docstring is the help and whose return value is the exit code), its --help examples
(``EPILOG``), and how it calls the core and prints the result. What several commands share
stays shared: options.py (declarations, checks), guard.py (exit codes), render*.py (output)."""
