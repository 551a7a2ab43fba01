"""Browser tests: Debian's Chromium, driven by Playwright, against Daphne serving the site."""
