#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wordduel.settings")
    from django.core.management import execute_from_command_line

    from wordduel.configuration import SettingRefused

    try:
        execute_from_command_line(sys.argv)
    except SettingRefused as refusal:  # a setting it cannot run with: one line, no traceback
        sys.exit(f"manage.py: {refusal}")


if __name__ == "__main__":
    main()
