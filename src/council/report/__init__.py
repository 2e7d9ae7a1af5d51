"""`council show ID --html` for any run: the timeline of every call read back from the record
(`timeline.py`), laid out as shapes (`chart.py`), and the self-contained page around it
(`page.py`, templates in `templates/`). A protocol gives the page its own part (a debate's
DECISION, a review's findings) through a template that extends `page.html.j2`; nothing here
imports a protocol."""
