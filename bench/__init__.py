"""Benchmarks and the generated tournaments they share with the tests."""
