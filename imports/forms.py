"""The import form: a GCG file or pasted text, the ruleset and lexicon to check it against.

It only parses; ``services.import_game`` checks everything that matters (size, text, the
record itself) and says which line is at fault.
"""

from __future__ import annotations

from typing import Any

from django import forms

from engine import RULESETS
from imports.services import MAX_IMPORT_BYTES
from lexicon.lexicon import available_lexicons


class ImportForm(forms.Form):
    record_file = forms.FileField(
        label="GCG file", required=False, help_text="A .gcg game record, up to 256 KiB."
    )
    record_text = forms.CharField(
        label="Or paste the record",
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
    )
    title = forms.CharField(
        label="Title", required=False, max_length=200, help_text="Optional: the record's own."
    )
    ruleset = forms.ChoiceField(
        label="Rules",
        initial="classic",
        help_text="Tournament records follow classic (2 blanks, +50 for a bingo).",
    )
    lexicon = forms.ChoiceField(label="Check words against", initial="enable")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["ruleset"].choices = [(name, name) for name in RULESETS]  # type: ignore[attr-defined]
        self.fields["lexicon"].choices = [  # type: ignore[attr-defined]
            (name, name.upper()) for name in available_lexicons()
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload = data.get("record_file")
        text = data.get("record_text") or ""
        if upload and text.strip():
            raise forms.ValidationError("Upload a file or paste a record, not both.")
        if upload:
            if upload.size is not None and upload.size > MAX_IMPORT_BYTES:
                raise forms.ValidationError(
                    f"The file is {upload.size:,} bytes; the limit is "
                    f"{MAX_IMPORT_BYTES // 1024} KiB."
                )
            data["record"] = upload.read(MAX_IMPORT_BYTES + 1)
            data["file_name"] = upload.name or ""
        elif text.strip():
            data["record"] = text
            data["file_name"] = ""
        else:
            raise forms.ValidationError("Choose a GCG file, or paste a record.")
        return data
