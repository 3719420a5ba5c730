import sys

from gpu_ledger_agent.main import main

sys.exit(main())
