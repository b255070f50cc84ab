"""`mjtable run`: the composition root of a table process."""
