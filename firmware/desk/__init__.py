"""The referee's desk: his actions over the table and what the display shows him."""
