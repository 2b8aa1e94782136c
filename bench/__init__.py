"""Benchmarks: run each as ``python -m bench.<name>`` from the project root."""
