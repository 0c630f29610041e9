"""``python -m gecmetrics``: the same as the ``gecmetrics`` script, for environments
whose scripts folder is not on PATH."""

from gecmetrics.interface.console import main

if __name__ == "__main__":
    main()
