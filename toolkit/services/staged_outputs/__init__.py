"""An instance written beside its place and published into it in one step: a file feed's staging folder swapped
into the instance's path (`file_outputs.py`), a table feed's staging table partition switched into the feed's table
(`table_outputs.py`). The process runner's outputs and the database import publish through them."""
