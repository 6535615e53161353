"""The Python of the scripts: one module a job, run by the thin bash entry points of scripts/
(docs/ARCHITECTURE.md, the scripts row)."""
