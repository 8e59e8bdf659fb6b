"""``python -m evalstats`` runs the command line."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while importing: same one line and exit code as main()
    print("evalstats: interrupted (Ctrl-C)", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
