"""``python -m evalstats`` runs the command line."""

from .cli import main

raise SystemExit(main())
