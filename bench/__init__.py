"""Benchmarks, the judged query set and the synthetic corpus generator, as one package.

A package so that tests import the generator and the judged set like any module
(``from bench.gen_corpus import generate``; pytest puts the repository on ``sys.path``), and
each script runs from the repository root either way: ``python bench/bench_search.py`` or
``python -m bench.bench_search``.
"""
