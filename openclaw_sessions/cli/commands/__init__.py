"""One module per command (app.COMMANDS lists them): ``run``, which calls the core and prints
the result (its docstring is the help, its return value the exit code); ``command``, its
parameters in --help order, declared with options.declare; and its --help examples
(``EPILOG``). What several commands share stays shared: options.py (declarations, checks),
guard.py (exit codes), render*.py (output)."""
