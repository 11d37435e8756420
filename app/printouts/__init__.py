"""Printed matter for the hall staff (seating slips), shared by the command line and the
admin pages: Jinja2 renders the HTML, segno draws the QR codes as inline SVG so a page
prints with no network."""
