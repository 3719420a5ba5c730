"""GPU Ledger's on-instance agent: nvidia-smi samples and work counters to the ingest API.

Training scripts count their work with one call::

    import gpu_ledger_agent
    gpu_ledger_agent.report(samples=len(batch))

which appends to the agent's local spool; the agent running beside it (``gpu-ledger-agent``,
usually a systemd service) picks the counts up and sends them with the GPU samples.
"""

from gpu_ledger_agent.counters import report

__version__ = "0.1.0"
__all__ = ["__version__", "report"]
