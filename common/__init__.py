"""The ground floor: what every app shares (refusals, text rules, logging, secret URLs).

It imports no app of the project."""
