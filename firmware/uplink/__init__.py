"""The table's end of the venue bus: the client, its messages, rulings, the sheet, the venue's
commands."""
