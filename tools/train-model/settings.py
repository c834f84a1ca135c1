"""Paths, the pinned run configuration, and thread settings shared by every step.

Import this before torch: the thread variables only take effect if set before the
libraries load.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out")
CFG = json.load(open(os.path.join(HERE, "run-config.json")))
os.environ.setdefault("OMP_NUM_THREADS", str(CFG["train"]["torch_threads"]))
os.environ.setdefault("OPENBLAS_NUM_THREADS", str(CFG["train"]["torch_threads"]))
# OpenMP threads otherwise spin between parallel regions and steal the cores
# OpenBLAS's own threads need (measured ~1.5x slower steps on 2 cores).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
